// `halo`: a scripting client for HALO servers over HaloServices. See `halo --help`.
import Foundation

await HaloCommand.runAndExit()
