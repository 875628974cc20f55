//! How many decoded images the process holds at once: a budget of bytes
//! shared by every thread, so the peak memory of preparing images does not
//! grow with the number of cores or of callers.
//!
//! Each image [`prepare`](super::prepare) decodes first takes a
//! [`Permit`] for its decoded size (four bytes a pixel of what the decoder
//! makes, reduced or not) and holds it until its output is encoded. Permits
//! are handed out in the order they are asked for, while the bytes held stay
//! within [`DECODED_BUDGET`]; an image larger than the whole budget is let
//! in alone. Images sent as they came are never decoded and take no permit.

use std::sync::{Condvar, Mutex, PoisonError};

/// The decoded pixels held at once across the process: 64 MiB, three
/// 2880×1800 screenshots or eight at 1920×1080, counted at four bytes a
/// pixel.
pub const DECODED_BUDGET: usize = 64 << 20;

/// The process's gate ([`DECODED_BUDGET`]).
static DECODING: Gate = Gate::new(DECODED_BUDGET);

/// Wait for room to decode `bytes` of pixels ([`DECODED_BUDGET`]).
pub(crate) fn reserve(bytes: usize) -> Permit<'static> {
    DECODING.reserve(bytes)
}

/// A first-come, first-served budget of bytes, shared by threads: what the
/// process's decoding holds its images in ([`DECODED_BUDGET`]), and what a
/// caller may hold its own work in (`mcp-proxy` holds the results it is
/// preparing in one).
///
/// [`Gate::reserve`] waits for the caller's turn and for room; the room is
/// given back when the [`Permit`] is dropped. A caller asking for more than
/// the whole budget is let in once nothing else is held, so nothing waits
/// for ever.
///
/// ```
/// use tool_carrier::media::Gate;
/// static LINES: Gate = Gate::new(100);
/// let a = LINES.reserve(60);
/// let b = LINES.reserve(40); // 100 of 100: fits
/// assert_eq!(LINES.held(), 100);
/// drop((a, b));
/// let big = LINES.reserve(500); // more than the budget: alone
/// assert_eq!(LINES.held(), 500);
/// ```
pub struct Gate {
    budget: usize,
    state: Mutex<State>,
    changed: Condvar,
}

struct State {
    held: usize,
    /// The ticket of the next caller to ask.
    next: u64,
    /// The ticket let in next: the callers behind it wait their turn, so a
    /// large image is not passed over for ever by small ones.
    serving: u64,
}

impl Gate {
    /// A gate letting `budget` bytes in at once.
    pub const fn new(budget: usize) -> Gate {
        Gate {
            budget,
            state: Mutex::new(State {
                held: 0,
                next: 0,
                serving: 0,
            }),
            changed: Condvar::new(),
        }
    }

    /// Wait for this caller's turn and for room for `bytes` (or for
    /// nothing to be held, when `bytes` is more than the budget).
    pub fn reserve(&self, bytes: usize) -> Permit<'_> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let ticket = state.next;
        state.next += 1;
        while state.serving != ticket || !fits(state.held, bytes, self.budget) {
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        state.serving += 1;
        state.held += bytes;
        drop(state);
        // The next in line may fit beside this one.
        self.changed.notify_all();
        Permit { gate: self, bytes }
    }

    /// The bytes held now.
    pub fn held(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .held
    }
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("budget", &self.budget)
            .field("held", &self.held())
            .finish()
    }
}

/// Whether `bytes` more may be held beside `held` within `budget`: always
/// when nothing is held, so an image over the budget is decoded alone.
fn fits(held: usize, bytes: usize, budget: usize) -> bool {
    held == 0 || held.saturating_add(bytes) <= budget
}

/// Room held in a [`Gate`] until dropped.
#[must_use = "the room is given back when the permit is dropped"]
pub struct Permit<'g> {
    gate: &'g Gate,
    bytes: usize,
}

impl std::fmt::Debug for Permit<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Permit")
            .field("bytes", &self.bytes)
            .finish()
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut state = self
            .gate
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        state.held -= self.bytes;
        drop(state);
        self.gate.changed.notify_all();
    }
}

/// The bytes a decoded `width` × `height` raster is counted at.
pub(crate) fn decoded_bytes(width: u32, height: u32) -> usize {
    usize::try_from(u64::from(width) * u64::from(height))
        .unwrap_or(usize::MAX)
        .saturating_mul(4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn room_is_counted_and_one_image_over_the_budget_goes_alone() {
        assert!(fits(0, 10, 8));
        assert!(fits(3, 5, 8));
        assert!(!fits(3, 6, 8));
        assert!(!fits(1, usize::MAX, 8));
        let gate = Gate::new(8);
        let a = gate.reserve(3);
        let b = gate.reserve(5);
        assert_eq!(gate.held(), 8);
        drop((a, b));
        assert_eq!(gate.held(), 0);
        let big = gate.reserve(100);
        assert_eq!(gate.held(), 100);
        drop(big);
        assert_eq!(gate.held(), 0);
        assert_eq!(decoded_bytes(2880, 1800), 20_736_000);
        assert_eq!(decoded_bytes(u32::MAX, u32::MAX), usize::MAX);
    }

    #[test]
    fn a_caller_waits_while_the_budget_is_held_and_in_its_turn() {
        let gate = Gate::new(10);
        let first = gate.reserve(10);
        let done = AtomicUsize::new(0);
        let (started, wait) = mpsc::channel();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                started.send(()).unwrap();
                let _p = gate.reserve(1);
                done.store(1, Ordering::SeqCst);
            });
            wait.recv().unwrap();
            // Let the other thread ask: it must not get in while all ten
            // bytes are held.
            std::thread::sleep(Duration::from_millis(50));
            assert_eq!(done.load(Ordering::SeqCst), 0);
            drop(first);
        });
        assert_eq!(done.load(Ordering::SeqCst), 1);
        assert_eq!(gate.held(), 0);
    }

    #[test]
    fn many_threads_never_hold_more_than_the_budget_or_one_large_image() {
        let gate = Gate::new(64);
        let high = AtomicUsize::new(0);
        let now = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for t in 0..8usize {
                let (gate, high, now) = (&gate, &high, &now);
                scope.spawn(move || {
                    for i in 0..200usize {
                        let bytes = if (t + i) % 17 == 0 {
                            100
                        } else {
                            1 + (t * 7 + i) % 30
                        };
                        let _p = gate.reserve(bytes);
                        let held = now.fetch_add(bytes, Ordering::SeqCst) + bytes;
                        high.fetch_max(held, Ordering::SeqCst);
                        assert!(held <= 64 || held == bytes, "{held} held with {bytes}");
                        now.fetch_sub(bytes, Ordering::SeqCst);
                    }
                });
            }
        });
        assert!(high.load(Ordering::SeqCst) <= 100);
        assert_eq!(gate.held(), 0);
    }
}
