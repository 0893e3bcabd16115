//! Work over the entries of a large playbook, spread over the cores, with
//! results taken in entry order.
//!
//! A writer that prints each entry on its own (given what it settled about
//! the whole playbook first) can print runs of entries on other threads and
//! append their text in order: the output is byte for byte what one thread
//! prints, whatever the number of threads. Most of this is rayon's; what
//! rayon has no form for is [`Ordered`], which reads items while a parser
//! on the calling thread is still finding them.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use rayon::prelude::*;

use crate::Out;

/// Items in a run handed to one thread. Large enough that handing out a
/// run costs little beside printing it, small enough that a window of runs
/// is a few megabytes.
pub const RUN: usize = 2048;

/// Below this many items everything stays on the calling thread: starting
/// the pool and copying text between buffers would cost more than it saves.
pub const MIN_ITEMS: usize = 4 * RUN;

/// Whether `n` items are worth spreading over threads.
pub fn worth_it(n: usize) -> bool {
    n >= MIN_ITEMS && rayon::current_num_threads() > 1
}

/// `f` of consecutive runs of `0..n`, on the thread pool when there are
/// enough, handed to `take` in order on the calling thread.
pub fn map_runs<T: Send>(n: usize, f: impl Fn(Range<usize>) -> T + Sync, take: impl FnMut(T)) {
    if !worth_it(n) {
        if n > 0 {
            let mut take = take;
            take(f(0..n));
        }
        return;
    }
    let runs: Vec<T> = (0..n.div_ceil(RUN))
        .into_par_iter()
        .map(|r| f(r * RUN..((r + 1) * RUN).min(n)))
        .collect();
    runs.into_iter().for_each(take);
}

/// `f` of each of `0..n`, handed to `take` in order on the calling thread,
/// for items each worth a thread on its own (the files of an ace-validate
/// run).
pub fn map_each<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync, take: impl FnMut(T)) {
    if n < 2 || rayon::current_num_threads() < 2 {
        (0..n).map(f).for_each(take);
        return;
    }
    let all: Vec<T> = (0..n).into_par_iter().with_max_len(1).map(&f).collect();
    all.into_iter().for_each(take);
}

/// `f` of each index of `0..n`, in order, written straight into the
/// result on the thread pool when there are enough.
pub fn map_index<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    let mut out = Vec::new();
    if worth_it(n) {
        (0..n)
            .into_par_iter()
            .with_min_len(RUN)
            .map(f)
            .collect_into_vec(&mut out);
    } else {
        out.extend((0..n).map(f));
    }
    out
}

/// `items` sorted, not stably, on the thread pool when there are enough.
pub fn sort_unstable<T: Ord + Send>(items: &mut [T]) {
    if worth_it(items.len()) {
        items.par_sort_unstable();
    } else {
        items.sort_unstable();
    }
}

/// `f` on each of a few heavy items (the entries of each section, say),
/// one task each, when their `total` size is worth spreading.
pub fn each_heavy_mut<I: Send>(items: &mut [I], total: usize, f: impl Fn(&mut I) + Sync) {
    if !worth_it(total) || items.len() < 2 {
        items.iter_mut().for_each(f);
        return;
    }
    items.par_iter_mut().for_each(&f);
}

/// `f` of each index of `0..n`, in order, its firsts in `left` and its
/// seconds in `right` (what they held is replaced). The results go
/// straight into the two vectors, on the thread pool when there are enough:
/// a reader building a million entries holds them once, not once per run
/// and again when the runs are joined.
pub fn unzip_into<A: Send, B: Send>(
    n: usize,
    f: impl Fn(usize) -> (A, B) + Sync + Send,
    left: &mut Vec<A>,
    right: &mut Vec<B>,
) {
    if worth_it(n) {
        (0..n)
            .into_par_iter()
            .with_min_len(RUN)
            .map(f)
            .unzip_into_vecs(left, right);
    } else {
        left.clear();
        right.clear();
        left.reserve_exact(n);
        right.reserve_exact(n);
        for i in 0..n {
            let (a, b) = f(i);
            left.push(a);
            right.push(b);
        }
    }
}

/// `f` of each of `parts`, in order, one task each when their `total`
/// size (in items) is worth spreading.
pub fn map_parts<P: Send, R: Send>(
    parts: Vec<P>,
    total: usize,
    f: impl Fn(P) -> R + Sync + Send,
) -> Vec<R> {
    if worth_it(total) && parts.len() > 1 {
        parts.into_par_iter().map(f).collect()
    } else {
        parts.into_iter().map(f).collect()
    }
}

/// Prints items `0..n` into `out`, `print(range, out)` printing a run of
/// them: on other threads into buffers appended in order when there are
/// enough items, else straight into `out`. `print` must print a run the
/// same wherever it starts in the output.
pub fn print_runs(
    n: usize,
    out: &mut Out<'_>,
    print: impl for<'o> Fn(Range<usize>, &mut Out<'o>) + Sync,
) {
    print_runs_reporting(n, out, &mut Vec::<()>::new(), |range, out, _| {
        print(range, out)
    });
}

/// [`print_runs`] for a printer that also reports: what each run reports
/// is added to `report` in order, so it is what one thread reports too.
pub fn print_runs_reporting<R: Send>(
    n: usize,
    out: &mut Out<'_>,
    report: &mut Vec<R>,
    print: impl for<'o> Fn(Range<usize>, &mut Out<'o>, &mut Vec<R>) + Sync,
) {
    if !worth_it(n) {
        print(0..n, out, report);
        return;
    }
    // Runs hold as many items each and print to about as many bytes: each
    // buffer starts at the largest size printed yet, instead of doubling
    // its way there and copying a run's text several times over.
    let largest = std::sync::atomic::AtomicUsize::new(0);
    map_runs(
        n,
        |range| {
            let mut buf = Out::with_capacity(largest.load(Ordering::Relaxed));
            let mut reported = Vec::new();
            print(range, &mut buf, &mut reported);
            largest.fetch_max(buf.len(), Ordering::Relaxed);
            // Bytes: the text is UTF-8 as it was printed, so it is not
            // checked again.
            (buf.into_bytes(), reported)
        },
        |(text, reported)| {
            out.append(&text);
            report.extend(reported);
        },
    );
}

/// Runs `f` with everything above on its calling thread: what output
/// spread over the cores must equal, for tests and for callers that want
/// no threads.
pub fn on_one_thread<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
        Ok(pool) => pool.install(f),
        // No thread to be had: the pool of the process is used.
        Err(_) => f(),
    }
}

/// Work done on a run of items, on whichever thread takes the run.
pub trait RunWork: Sync {
    type Item: Send;
    type Out: Send;
    fn work(&self, run: Vec<Self::Item>) -> Self::Out;
}

/// State that what each run gives is handed to, in order, on the thread
/// that pushes the items.
pub trait TakeRuns<O> {
    fn take(&mut self, out: O);
}

/// Items in a run of [`Ordered`]: a few milliseconds of reading entries,
/// so that a thread that ends its last run early waits little.
pub const ORDERED_RUN: usize = 1024;

/// Runs done but not yet taken (waiting for an earlier one) past which
/// the calling thread waits instead of working on more.
const MAX_UNTAKEN: usize = 16;

/// Hands items pushed on the calling thread to a [`RunWork`] a run at a
/// time, on the pool's threads but one and on the calling thread itself,
/// and the results to a [`TakeRuns`] in order.
///
/// The calling thread (a parser, which spends a fraction of its time
/// producing the items) works on the oldest waiting run whenever more
/// wait than the workers are about to take, instead of handing every run
/// to as many threads as there are cores and sleeping: with more threads
/// than cores, the scheduler often leaves a core idle while two threads
/// take turns on the other.
///
/// Up to [`MIN_ITEMS`] items everything stays on the calling thread.
pub struct Ordered<'s, 'e, W: RunWork, T: TakeRuns<W::Out>> {
    work: Arc<W>,
    take: T,
    /// The run being filled.
    run: Vec<W::Item>,
    /// Items pushed before the workers start, handed out in runs once
    /// there are enough to be worth it.
    held: Vec<W::Item>,
    scope: &'s std::thread::Scope<'s, 'e>,
    queue: Option<Arc<RunQueue<W::Item, W::Out>>>,
    workers: Vec<std::thread::ScopedJoinHandle<'s, ()>>,
    /// Closes the queue however this ends: unwinding from a panic on the
    /// calling thread, the scope would otherwise wait for workers waiting
    /// for runs.
    _closer: Option<Closer<W::Item, W::Out>>,
    /// Runs handed out so far.
    sent: usize,
}

struct RunQueue<I, O> {
    state: Mutex<QueueState<I, O>>,
    /// Signalled when a run waits or the queue closes.
    work: Condvar,
    /// Signalled when a worker is done with a run.
    done: Condvar,
}

struct QueueState<I, O> {
    /// Runs waiting, with their number.
    waiting: VecDeque<(usize, Vec<I>)>,
    /// The results of runs `first..`, `None` while a run is worked on.
    results: VecDeque<Option<O>>,
    first: usize,
    closed: bool,
    /// A worker panicked: its result will never come.
    panicked: bool,
}

impl<I, O> QueueState<I, O> {
    /// The results next in order that are done, taken out.
    fn take_ready(&mut self) -> Vec<O> {
        let n = self.results.iter().take_while(|r| r.is_some()).count();
        self.first += n;
        self.results.drain(..n).flatten().collect()
    }
}

struct Closer<I, O>(Arc<RunQueue<I, O>>);

impl<I, O> Drop for Closer<I, O> {
    fn drop(&mut self) {
        self.0.close();
    }
}

impl<I, O> RunQueue<I, O> {
    fn new() -> Self {
        RunQueue {
            state: Mutex::new(QueueState {
                waiting: VecDeque::new(),
                results: VecDeque::new(),
                first: 0,
                closed: false,
                panicked: false,
            }),
            work: Condvar::new(),
            done: Condvar::new(),
        }
    }

    /// Workers end once they are done with the runs they have: what still
    /// waits is dropped.
    fn close(&self) {
        let waiting = {
            let mut state = self.lock();
            state.closed = true;
            std::mem::take(&mut state.waiting)
        };
        drop(waiting);
        self.work.notify_all();
    }

    fn lock(&self) -> MutexGuard<'_, QueueState<I, O>> {
        // Work runs outside the lock, so a panic cannot leave the state
        // half changed.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn put(&self, number: usize, out: O) {
        let mut state = self.lock();
        // Results before `number` are only taken once there: its slot is
        // still at or after `first`.
        let at = number - state.first;
        state.results[at] = Some(out);
    }
}

impl<'s, 'e: 's, W: RunWork + Send + 'e, T: TakeRuns<W::Out>> Ordered<'s, 'e, W, T> {
    pub fn new(scope: &'s std::thread::Scope<'s, 'e>, work: W, take: T) -> Self {
        Ordered {
            work: Arc::new(work),
            take,
            run: Vec::new(),
            held: Vec::new(),
            scope,
            queue: None,
            workers: Vec::new(),
            _closer: None,
            sent: 0,
        }
    }

    pub fn push(&mut self, item: W::Item) {
        if self.queue.is_none() {
            self.held.push(item);
            if worth_it(self.held.len()) {
                self.start();
            }
            return;
        }
        self.run.push(item);
        if self.run.len() >= ORDERED_RUN {
            let run = std::mem::replace(&mut self.run, Vec::with_capacity(ORDERED_RUN));
            self.send(run);
        }
    }

    fn start(&mut self) {
        let queue = Arc::new(RunQueue::new());
        for _ in 1..rayon::current_num_threads() {
            let (queue, work) = (Arc::clone(&queue), Arc::clone(&self.work));
            self.workers
                .push(self.scope.spawn(move || work_on(&queue, &*work)));
        }
        self._closer = Some(Closer(Arc::clone(&queue)));
        self.queue = Some(queue);
        let held = std::mem::take(&mut self.held);
        let mut items = held.into_iter();
        loop {
            let run: Vec<W::Item> = items.by_ref().take(ORDERED_RUN).collect();
            if run.is_empty() {
                break;
            }
            self.send(run);
        }
    }

    /// Hands `run` out, then works here on the oldest waiting run while
    /// more wait than there are workers.
    fn send(&mut self, run: Vec<W::Item>) {
        let Some(queue) = self.queue.clone() else {
            return;
        };
        {
            let mut state = queue.lock();
            state.waiting.push_back((self.sent, run));
            state.results.push_back(None);
        }
        self.sent += 1;
        queue.work.notify_one();
        self.help(&queue, false);
    }

    /// Takes what is done, in order, and works on waiting runs: while more
    /// wait than there are workers, or, at the `end`, until every run is
    /// taken.
    fn help(&mut self, queue: &RunQueue<W::Item, W::Out>, end: bool) {
        loop {
            let mut state = queue.lock();
            let ready = state.take_ready();
            if !ready.is_empty() {
                drop(state);
                for out in ready {
                    self.take.take(out);
                }
                continue;
            }
            if state.panicked || (end && state.results.is_empty()) {
                return;
            }
            if state.waiting.len() > if end { 0 } else { self.workers.len() } {
                let Some((number, run)) = state.waiting.pop_front() else {
                    return;
                };
                drop(state);
                let out = self.work.work(run);
                queue.put(number, out);
                continue;
            }
            // The oldest run is a worker's: wait for it at the end, or if
            // too many results wait behind it.
            if end || state.results.len() > MAX_UNTAKEN {
                drop(
                    queue
                        .done
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner),
                );
                continue;
            }
            return;
        }
    }

    /// The state once every run is worked on and taken.
    pub fn finish(mut self) -> T {
        let Some(queue) = self.queue.clone() else {
            let mut items = std::mem::take(&mut self.held).into_iter();
            loop {
                let run: Vec<W::Item> = items.by_ref().take(ORDERED_RUN).collect();
                if run.is_empty() {
                    return self.take;
                }
                let out = self.work.work(run);
                self.take.take(out);
            }
        };
        let last = std::mem::take(&mut self.run);
        if !last.is_empty() {
            self.send(last);
        }
        self.help(&queue, true);
        queue.close();
        for w in self.workers.drain(..) {
            // A panic while working is a bug; it is passed on as one.
            w.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        }
        self.take
    }
}

/// A worker: runs as they come, until the queue closes.
fn work_on<W: RunWork>(queue: &RunQueue<W::Item, W::Out>, work: &W) {
    loop {
        let (number, run) = {
            let mut state = queue.lock();
            loop {
                if let Some(next) = state.waiting.pop_front() {
                    break next;
                }
                if state.closed {
                    return;
                }
                state = queue
                    .work
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work.work(run))) {
            Ok(out) => queue.put(number, out),
            Err(e) => {
                queue.lock().panicked = true;
                queue.done.notify_all();
                std::panic::resume_unwind(e);
            }
        }
        queue.done.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(i: usize) -> String {
        format!("item {i} {}\n", "é".repeat(i % 5))
    }

    /// Parts of uneven sizes give their results in order, on the pool
    /// and on one thread alike.
    #[test]
    fn parts_are_mapped_in_order_on_every_core() {
        let parts: Vec<usize> = (0..300).map(|i| (i * 37) % 101).collect();
        let expect: Vec<Vec<usize>> = parts.iter().map(|&n| (0..n).collect()).collect();
        let total = MIN_ITEMS * 2;
        let go = || map_parts(parts.clone(), total, |n| (0..n).collect::<Vec<_>>());
        assert_eq!(go(), expect);
        assert_eq!(on_one_thread(go), expect);
    }

    #[test]
    fn runs_are_taken_in_order_whatever_the_size() {
        for n in [
            0,
            1,
            RUN - 1,
            RUN,
            MIN_ITEMS - 1,
            MIN_ITEMS,
            MIN_ITEMS * 5 + 17,
        ] {
            let mut seen = Vec::new();
            map_runs(n, |r| r.collect::<Vec<_>>(), |v| seen.extend(v));
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "{n}");
        }
    }

    /// Heavy items one at a time: every one taken once, in order, however
    /// long each takes, and on more than one thread when there is more
    /// than one.
    #[test]
    fn each_item_is_taken_in_order() {
        for n in [0, 1, 2, 37] {
            let threads = std::sync::Mutex::new(std::collections::HashSet::new());
            let mut seen = Vec::new();
            map_each(
                n,
                |i| {
                    std::thread::sleep(std::time::Duration::from_micros((37 - i as u64) * 50));
                    threads.lock().unwrap().insert(std::thread::current().id());
                    i
                },
                |i| seen.push(i),
            );
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "{n}");
            if n > 2 && rayon::current_num_threads() > 1 {
                assert!(threads.lock().unwrap().len() > 1, "{n}: one thread");
            }
        }
    }

    /// A slow run, and a slow taker, leave the order as it is; the runs
    /// are spread over more than one thread.
    #[test]
    fn runs_are_taken_in_order_when_some_are_slow() {
        let n = RUN * 40 + 3;
        let threads = std::sync::Mutex::new(std::collections::HashSet::new());
        let mut seen = Vec::new();
        map_runs(
            n,
            |r| {
                if r.start == RUN * 3 || r.start == RUN * 17 {
                    std::thread::sleep(std::time::Duration::from_millis(30));
                }
                threads.lock().unwrap().insert(std::thread::current().id());
                r.collect::<Vec<_>>()
            },
            |v| {
                if v.first() == Some(&(RUN * 9)) {
                    std::thread::sleep(std::time::Duration::from_millis(30));
                }
                seen.extend(v)
            },
        );
        assert_eq!(seen, (0..n).collect::<Vec<_>>());
        if rayon::current_num_threads() > 1 {
            assert!(threads.lock().unwrap().len() > 1);
        }
    }

    #[test]
    fn a_panic_in_a_run_is_passed_on() {
        for bad in [0, RUN * 2, RUN * 30] {
            let caught = std::panic::catch_unwind(|| {
                map_runs(
                    RUN * 31,
                    |r| assert!(!r.contains(&bad), "a bug in the run"),
                    |()| {},
                )
            });
            assert!(caught.is_err(), "{bad}");
        }
    }

    #[test]
    fn printed_runs_are_the_text_one_thread_prints() {
        for n in [0, 3, MIN_ITEMS, MIN_ITEMS * 3 + 5] {
            let mut one = String::new();
            (0..n).for_each(|i| one.push_str(&line(i)));
            let mut out = Out::new();
            out.push_str("head\n");
            print_runs(n, &mut out, |range, o| {
                range.for_each(|i| o.push_str(&line(i)));
            });
            assert_eq!(out.into_string(), format!("head\n{one}"), "{n}");
        }
    }

    #[test]
    fn more_threads_print_the_same_text() {
        let n = MIN_ITEMS * 2 + 1;
        let print = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool");
            pool.install(|| {
                let mut out = Out::new();
                print_runs(n, &mut out, |range, o| {
                    range.for_each(|i| o.push_str(&line(i)));
                });
                out.into_string()
            })
        };
        assert_eq!(print(1), print(3));
        assert_eq!(print(2), print(8));
    }

    /// Doubles each item, noting the thread; the run numbered `slow`
    /// (by its first item) takes a while, so that later runs end first.
    struct Double {
        slow: usize,
    }

    impl RunWork for Double {
        type Item = usize;
        type Out = (Vec<usize>, std::thread::ThreadId);
        fn work(&self, run: Vec<usize>) -> Self::Out {
            if run.first() == Some(&self.slow) {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            assert!(run.len() <= ORDERED_RUN, "{}", run.len());
            (
                run.iter().map(|i| i * 2).collect(),
                std::thread::current().id(),
            )
        }
    }

    #[derive(Default)]
    struct Seen {
        items: Vec<usize>,
        threads: std::collections::HashSet<std::thread::ThreadId>,
    }

    impl TakeRuns<(Vec<usize>, std::thread::ThreadId)> for Seen {
        fn take(&mut self, (items, thread): (Vec<usize>, std::thread::ThreadId)) {
            self.items.extend(items);
            self.threads.insert(thread);
        }
    }

    fn ordered(n: usize, slow: usize) -> Seen {
        std::thread::scope(|scope| {
            let mut o = Ordered::new(scope, Double { slow }, Seen::default());
            (0..n).for_each(|i| o.push(i));
            o.finish()
        })
    }

    #[test]
    fn ordered_runs_are_taken_in_order_whatever_thread_ends_first() {
        let big = ORDERED_RUN * 37 + 5;
        for n in [0, 1, MIN_ITEMS - 1, MIN_ITEMS, MIN_ITEMS + 1, big] {
            // The slow run is the first the workers get, or one after.
            for slow in [0, MIN_ITEMS, MIN_ITEMS + ORDERED_RUN * 3] {
                let seen = ordered(n, slow);
                assert_eq!(
                    seen.items,
                    (0..n).map(|i| i * 2).collect::<Vec<_>>(),
                    "{n} {slow}"
                );
                if n < MIN_ITEMS {
                    let here = std::thread::current().id();
                    assert!(seen.threads.iter().all(|t| *t == here), "{n}");
                }
            }
        }
    }

    #[test]
    fn ordered_runs_spread_over_the_pool_and_stay_on_one_thread_in_it() {
        let n = ORDERED_RUN * 64;
        let seen = ordered(n, MIN_ITEMS);
        if rayon::current_num_threads() > 1 {
            // The slow run keeps one thread busy while another reads on.
            assert!(seen.threads.len() > 1, "{:?}", seen.threads);
        }
        let here = std::thread::current().id();
        let one = on_one_thread(|| ordered(n, MIN_ITEMS));
        assert_eq!(one.items, seen.items);
        assert_eq!(one.threads.len(), 1);
        assert!(!one.threads.contains(&here));
    }

    struct Fails;

    impl RunWork for Fails {
        type Item = usize;
        type Out = usize;
        fn work(&self, run: Vec<usize>) -> usize {
            assert!(!run.contains(&(MIN_ITEMS + 5)), "a bug in the work");
            run.len()
        }
    }

    impl TakeRuns<usize> for Vec<usize> {
        fn take(&mut self, out: usize) {
            self.push(out);
        }
    }

    #[test]
    fn a_panic_while_working_is_passed_on_wherever_it_happens() {
        for n in [MIN_ITEMS + 6, MIN_ITEMS * 4] {
            let caught = std::panic::catch_unwind(|| {
                std::thread::scope(|scope| {
                    let mut o = Ordered::new(scope, Fails, Vec::new());
                    (0..n).for_each(|i| o.push(i));
                    o.finish()
                })
            });
            assert!(caught.is_err(), "{n}");
        }
    }

    #[test]
    fn unzipped_results_are_in_order_and_replace_what_was_there() {
        for n in [0, 1, MIN_ITEMS - 1, MIN_ITEMS, MIN_ITEMS * 3 + 7] {
            let (mut left, mut right) = (vec![usize::MAX; 3], vec![String::from("old")]);
            unzip_into(n, |i| (i * 2, line(i)), &mut left, &mut right);
            assert_eq!(left, (0..n).map(|i| i * 2).collect::<Vec<_>>(), "{n}");
            assert_eq!(right, (0..n).map(line).collect::<Vec<_>>(), "{n}");
        }
    }

    #[test]
    fn indices_are_mapped_in_order_and_sorts_sort_on_either_side_of_the_pool() {
        for n in [0, 1, MIN_ITEMS - 1, MIN_ITEMS, MIN_ITEMS * 3 + 7] {
            let mapped = map_index(n, |i| (i * 7919) % 1009);
            assert_eq!(
                mapped,
                (0..n).map(|i| (i * 7919) % 1009).collect::<Vec<_>>(),
                "{n}"
            );
            let mut sorted = mapped.clone();
            sort_unstable(&mut sorted);
            let mut expected = mapped;
            expected.sort();
            assert_eq!(sorted, expected, "{n}");
        }
    }

    #[test]
    fn reports_of_runs_come_in_order_with_their_text() {
        let n = MIN_ITEMS * 2 + 3;
        let mut out = Out::new();
        let mut report = Vec::new();
        print_runs_reporting(n, &mut out, &mut report, |range, o, r| {
            for i in range {
                o.push_str(&line(i));
                if i % 1000 == 0 {
                    r.push(i);
                }
            }
        });
        let one: String = (0..n).map(line).collect();
        assert_eq!(out.into_string(), one);
        assert_eq!(report, (0..n).step_by(1000).collect::<Vec<_>>());
    }
}
