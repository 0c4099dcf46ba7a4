// halo-desk: the HaloDesk GNOME application.
import CGtk
import Foundation

let options: CommandLineOptions
do {
    options = try CommandLineOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("halo-desk: \(error)\n\n\(CommandLineOptions.usage)\n".utf8))
    exit(2)
}
if options.showHelp { print(CommandLineOptions.usage); exit(0) }
if options.showVersion { print("halo-desk \(AppInfo.version)"); exit(0) }

// A desktop app allocates mostly on the main thread: two malloc arenas instead of glibc's default
// of eight per core keep memory that worker threads freed from lingering in arenas of their own.
halo_limit_malloc_arenas(2)

// GTK owns the main thread from here on; the bridge lets @MainActor tasks run inside its loop.
// `main` stays synchronous: an async main would call dispatch_main() and starve GLib.
let status = MainActor.assumeIsolated {
    MainLoopBridge.install()
    return HaloDeskApplication(options: options).run()
}
exit(status)
