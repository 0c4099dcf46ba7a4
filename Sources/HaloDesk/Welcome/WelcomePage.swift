/// First run (`Resources/ui/welcome-page.ui`): open the local workspace or connect to a server.
@MainActor
final class WelcomePage {
    let widget: Widget
    let openLocalButton: Button
    let connectButton: Button

    init(onOpenLocal: @escaping @MainActor () -> Void, onConnect: @escaping @MainActor () -> Void) throws {
        let builder = try Builder(ui: "welcome-page")
        widget = try builder.object("welcome_page")
        openLocalButton = try builder.object("open_local_button")
        connectButton = try builder.object("connect_button")
        openLocalButton.onClicked(onOpenLocal)
        connectButton.onClicked(onConnect)
    }
}
