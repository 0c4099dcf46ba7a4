// The one way feature code binds a handler to its owner without keeping the owner alive.
//
//     saveButton.onClicked(weakly(self) { $0.save() })
//     pager.onReset = weakly(self) { view, total in view.table.reload(count: total) }
//
// The handler calls `body` with the owner while the owner lives and does nothing once it is gone,
// so a GTK handler (kept by the widget) or a callback (kept by a model) never forms a cycle with
// the window or view that installed it. Replaces `[weak self] in guard let self else { return }`.

/// A handler with no arguments, bound weakly to `owner`.
@MainActor
func weakly<Owner: AnyObject>(_ owner: Owner, _ body: @escaping @MainActor (Owner) -> Void) -> @MainActor () -> Void {
    { [weak owner] in if let owner { body(owner) } }
}

/// A handler with one argument, bound weakly to `owner`.
@MainActor
func weakly<Owner: AnyObject, Argument>(
    _ owner: Owner, _ body: @escaping @MainActor (Owner, Argument) -> Void
) -> @MainActor (Argument) -> Void {
    { [weak owner] argument in if let owner { body(owner, argument) } }
}

/// A handler with two arguments, bound weakly to `owner`.
@MainActor
func weakly<Owner: AnyObject, First, Second>(
    _ owner: Owner, _ body: @escaping @MainActor (Owner, First, Second) -> Void
) -> @MainActor (First, Second) -> Void {
    { [weak owner] first, second in if let owner { body(owner, first, second) } }
}
