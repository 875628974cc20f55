//! The threads that fit bodies: `--jobs` of them, always the same, so the
//! memory a fit frees is reused by the next one rather than left in the
//! allocator's arena of whichever runtime thread ran it (32 bodies of
//! 145 MB fitted on the runtime's threads peaked at 1.26 GB, three times
//! one body's peak).

use std::sync::mpsc;
use std::sync::{Arc, Mutex};

type Job = Box<dyn FnOnce() + Send>;

/// A fixed set of threads running jobs in turn.
pub struct Pool {
    jobs: mpsc::Sender<Job>,
}

impl Pool {
    /// `threads` threads, named `fit`.
    pub fn new(threads: usize) -> std::io::Result<Pool> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for _ in 0..threads.max(1) {
            let queue = Arc::clone(&queue);
            std::thread::Builder::new()
                .name("fit".into())
                .spawn(move || loop {
                    let job = match queue.lock() {
                        Ok(queue) => queue.recv(),
                        Err(_) => return,
                    };
                    match job {
                        Ok(job) => job(),
                        Err(_) => return,
                    }
                })?;
        }
        Ok(Pool { jobs })
    }

    /// Run `job` on one of the threads, once one is free.
    pub async fn run<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = tx.send(job());
        });
        self.jobs
            .send(job)
            .expect("the fit threads outlive the server");
        rx.await
            .expect("a fit job answers (a panic in it ends the process)")
    }
}
