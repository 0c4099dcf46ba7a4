import Foundation
import Logging

enum ConnectionLimits {
    /// Raises the soft limit of open files to the hard limit: every connection and the database
    /// files each take a descriptor, and distributions' default soft limit (often 1,024, sometimes
    /// 256) is far below what `ServerLimits.connections` allows.
    static func raiseDescriptorLimit(logger: Logger) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        let before = limit.rlim_cur
        limit.rlim_cur = limit.rlim_max
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 {
            logger.warning("Could not raise the open-file limit above \(before): \(String(cString: strerror(errno)))")
        }
    }
}
