import CGtk
import Foundation

/// Timing marks for the benchmarks (`Benchmarks/app/measure-reopen.sh`, `measure-filter-builder.sh`),
/// written only when `HALO_DESK_MARKS` names a file: one line per mark,
/// `<CLOCK_MONOTONIC ns> <what> cpu=<process CPU ns>`, appended so the benchmark's driver can add
/// its own lines (its clicks) on the same clock (`Benchmarks/app/bench_driver.py` reads them). The
/// CPU time is the process's, all threads, so the difference between two marks is what the app
/// spent between them even on a busy machine. Unset, every call is one check of a constant.
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
        guard let file else { return }
        var cpu = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu)
        file.write(Data("\(now()) \(what) cpu=\(Int(cpu.tv_sec) * 1_000_000_000 + Int(cpu.tv_nsec))\n".utf8))
    }

    /// Marks `what` after the next frame painted with `widget` on screen: at once if it is mapped,
    /// else once it is (a window being presented: its first frame).
    static func markNextPaint(of widget: Widget, _ what: String) {
        guard isEnabled else { return }
        let watch = PaintWatch()
        guard !widget.isMapped else {
            watch.mark(what, afterNextPaintOf: widget)
            return
        }
        // Not the wrapper: a window only the caller's wrapper holds (About) must still be watched,
        // and the handler must not keep it alive. It is alive while it emits `map`.
        let raw = widget.raw
        watch.map = widget.onMap {
            watch.map?.disconnect()
            watch.map = nil
            watch.mark(what, afterNextPaintOf: Widget(retaining: raw))
        }
    }

    @MainActor
    private final class PaintWatch {
        var map: SignalConnection?
        var paint: SignalConnection?

        func mark(_ what: String, afterNextPaintOf widget: Widget) {
            paint = widget.onAfterPaint { [self] in
                BenchmarkMarks.mark(what)
                paint?.disconnect()
                paint = nil
            }
        }
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
