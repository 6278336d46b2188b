//! The server's stop signal. Every socket and game task waits for it on every turn of
//! its loop, so a poll must cost next to nothing: a [`Stopped`] future reads one flag
//! and compares its task's waker with the one it registered, and takes the lock of
//! the waiting list only when it first registers (or its waker changes). A `watch`
//! receiver's pending `changed()`, or a `CancellationToken`'s `cancelled()`, takes a
//! lock on every poll instead (BENCHMARKS.md, issue 19).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

/// Set once, when shutdown begins; wakes every task waiting for it.
#[derive(Default)]
pub struct StopSignal {
    stopped: AtomicBool,
    waiting: Mutex<Waiting>,
}

/// The tasks waiting for the signal, by key.
#[derive(Default)]
struct Waiting {
    next: u64,
    wakers: HashMap<u64, Waker>,
}

impl StopSignal {
    fn waiting(&self) -> MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sets the signal and wakes every task waiting for it.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        let wakers = std::mem::take(&mut self.waiting().wakers);
        for w in wakers.into_values() {
            w.wake();
        }
    }

    /// Whether the signal is set.
    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    /// A future that resolves once the signal is set (at once if it is). Made once per
    /// task and polled on every turn of its loop.
    pub fn stopped(self: &Arc<Self>) -> Stopped {
        Stopped {
            signal: Arc::clone(self),
            registered: None,
        }
    }

    /// Tasks registered as waiting.
    #[cfg(test)]
    fn waiters(&self) -> usize {
        self.waiting().wakers.len()
    }
}

/// Resolves once the [`StopSignal`] is set.
pub struct Stopped {
    signal: Arc<StopSignal>,
    /// The key and waker this future is registered with.
    registered: Option<(u64, Waker)>,
}

impl Stopped {
    /// Whether the signal is set (without waiting).
    pub fn is_stopped(&self) -> bool {
        self.signal.is_stopped()
    }
}

impl Future for Stopped {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.signal.is_stopped() {
            return Poll::Ready(());
        }
        if self
            .registered
            .as_ref()
            .is_some_and(|(_, w)| w.will_wake(cx.waker()))
        {
            return Poll::Pending;
        }
        let this = &mut *self;
        let mut waiting = this.signal.waiting();
        let key = match &this.registered {
            Some((key, _)) => *key,
            None => {
                waiting.next += 1;
                waiting.next
            }
        };
        waiting.wakers.insert(key, cx.waker().clone());
        drop(waiting);
        this.registered = Some((key, cx.waker().clone()));
        // Set while registering: `stop` may have taken the list before this waker
        // was in it.
        if this.signal.is_stopped() {
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        if let Some((key, _)) = self.registered.take() {
            self.signal.waiting().wakers.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_waiting_task_ends_when_the_signal_is_set() {
        let signal = Arc::new(StopSignal::default());
        let tasks: Vec<_> = (0..50)
            .map(|_| {
                let mut stop = signal.stopped();
                tokio::spawn(async move {
                    // Polled on every turn, as the socket and game tasks do.
                    let mut turns = 0u64;
                    loop {
                        tokio::select! {
                            () = tokio::time::sleep(std::time::Duration::from_millis(1)) => turns += 1,
                            () = &mut stop => return turns,
                        }
                    }
                })
            })
            .collect();
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        assert_eq!(signal.waiters(), 50);
        signal.stop();
        for t in tasks {
            tokio::time::timeout(std::time::Duration::from_secs(10), t)
                .await
                .expect("a task missed the signal")
                .unwrap();
        }
        assert_eq!(signal.waiters(), 0);
    }

    #[tokio::test]
    async fn a_future_made_after_the_signal_is_ready_at_once() {
        let signal = Arc::new(StopSignal::default());
        signal.stop();
        signal.stopped().await;
        assert!(signal.is_stopped());
    }

    #[tokio::test]
    async fn a_dropped_future_leaves_the_waiting_list() {
        let signal = Arc::new(StopSignal::default());
        let mut stop = signal.stopped();
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(5), &mut stop)
                .await
                .is_err()
        );
        assert_eq!(signal.waiters(), 1);
        drop(stop);
        assert_eq!(signal.waiters(), 0);
    }
}
