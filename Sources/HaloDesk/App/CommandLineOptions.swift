import Foundation

/// halo-desk's own command line. GApplication rejects flags it does not know, so we parse ours
/// here and start GApplication with no arguments.
struct CommandLineOptions: Equatable {
    /// Allow several instances (tests; side-by-side workspaces). Default: one instance per session.
    var nonUnique = false
    /// Open the local workspace directly (`make run`), whatever was chosen before.
    var localWorkspace = false
    /// Save a PNG of the main window after its first frame, then quit (release checks, docs).
    var screenshotPath: String?
    /// Quit right after the first frame is painted (start-up benchmarks).
    var quitAfterFirstFrame = false
    var showHelp = false
    var showVersion = false

    struct ParseError: Error, CustomStringConvertible { let description: String }

    static let usage = """
        Usage: halo-desk [OPTIONS]

          --local-workspace       open the local workspace directly
          --non-unique            run beside an already running HaloDesk
          --screenshot PATH       save a PNG of the main window after it is shown, then quit
          --quit-after-first-frame
                                  quit as soon as the main window has been painted
          --version               print the version
          -h, --help              show this help
        """

    init() {}

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--non-unique": nonUnique = true
            case "--local-workspace": localWorkspace = true
            case "--quit-after-first-frame": quitAfterFirstFrame = true
            case "--version": showVersion = true
            case "-h", "--help": showHelp = true
            case "--screenshot":
                guard let path = remaining.popFirst() else { throw ParseError(description: "--screenshot needs a file path") }
                screenshotPath = path
            default:
                throw ParseError(description: "unknown option '\(argument)'")
            }
        }
    }
}
