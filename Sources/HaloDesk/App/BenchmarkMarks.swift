import CGtk
import Foundation

/// Timing marks for the benchmarks (`Benchmarks/app/measure-reopen.sh`), written only when
/// `HALO_DESK_MARKS` names a file: one line per mark, `<CLOCK_MONOTONIC ns> <what>`, appended so
/// the benchmark's driver can add its own lines (its clicks) on the same clock. Unset, every
/// call is one check of a constant.
@MainActor
enum BenchmarkMarks {
    private static let file: FileHandle? = {
        guard let path = ProcessInfo.processInfo.environment["HALO_DESK_MARKS"], !path.isEmpty else { return nil }
        // O_APPEND: the driver appends to the same file, and each line must land whole at the end.
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        return descriptor < 0 ? nil : FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }()

    static var isEnabled: Bool { file != nil }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func mark(_ what: String) {
        file?.write(Data("\(now()) \(what)\n".utf8))
    }

    /// Records every frame of `widget`'s window that comes later than `slowerThan` seconds after
    /// the one before (`stall <gap ms>`): a tick callback keeps the frame clock running at the
    /// display's rate, so a long gap is the main loop blocked, not an idle window.
    static func watchFrames(of widget: Widget, slowerThan threshold: Double = 0.025) {
        guard isEnabled else { return }
        let watcher = FrameWatcher(threshold: threshold)
        widget.onEachFrame {
            watcher.tick()
            return true
        }
    }

    @MainActor
    private final class FrameWatcher {
        let threshold: UInt64
        var last: UInt64 = 0
        init(threshold: Double) { self.threshold = UInt64(threshold * 1e9) }

        func tick() {
            let now = BenchmarkMarks.now()
            if last != 0, now - last > threshold {
                BenchmarkMarks.mark("stall \(String(format: "%.1f", Double(now - last) / 1e6))")
            }
            last = now
        }
    }
}
