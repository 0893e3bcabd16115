//! Work over the entries of a large playbook, spread over the cores, with
//! results taken in entry order.
//!
//! A writer that prints each entry on its own (given what it settled about
//! the whole playbook first) can print runs of entries on other threads and
//! append their text in order: the output is byte for byte what one thread
//! prints, whatever the number of threads. The work is rayon's; what is
//! here is when it is worth spreading, and results taken in order.

use std::ops::Range;
use std::sync::atomic::Ordering;

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
    // A window of runs at a time, each taken before the next is made:
    // what the runs make (a large file's text, say) is never all held at
    // once.
    let runs = n.div_ceil(RUN);
    let window = 4 * rayon::current_num_threads();
    let mut take = take;
    for first in (0..runs).step_by(window) {
        let made: Vec<T> = (first..(first + window).min(runs))
            .into_par_iter()
            .map(|r| f(r * RUN..((r + 1) * RUN).min(n)))
            .collect();
        made.into_iter().for_each(&mut take);
    }
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

/// `f` of consecutive runs of `items` (each with the index of its first),
/// in order, on the thread pool when there are enough; `f` may take what
/// it keeps out of the items.
pub fn map_runs_mut<I: Send, T: Send>(
    items: &mut [I],
    f: impl Fn(usize, &mut [I]) -> T + Sync + Send,
) -> Vec<T> {
    if !worth_it(items.len()) {
        return vec![f(0, items)];
    }
    // Runs enough for every thread to get many: with a few long ones, one
    // thread works on alone at the end.
    let run = (items.len() / (16 * rayon::current_num_threads())).clamp(64, RUN);
    items
        .par_chunks_mut(run)
        .enumerate()
        .map(|(r, items)| f(r * run, items))
        .collect()
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
    // buffer starts at the largest size printed yet, or a kilobyte an item
    // before any is printed, instead of doubling its way there and copying
    // a run's text several times over. Room not written to is never
    // touched, so it costs no memory.
    let largest = std::sync::atomic::AtomicUsize::new(0);
    map_runs(
        n,
        |range| {
            let room = largest.load(Ordering::Relaxed).max(range.len() << 10);
            let mut buf = Out::with_capacity(room);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn line(i: usize) -> String {
        format!("item {i} {}\n", "é".repeat(i % 5))
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
        let spread = rayon::current_num_threads() > 1;
        for n in [0, 1, 2, 37] {
            let threads = std::sync::Mutex::new(std::collections::HashSet::new());
            let mut seen = Vec::new();
            map_each(
                n,
                |i| {
                    threads.lock().unwrap().insert(std::thread::current().id());
                    // The first item is held until another thread has
                    // taken one, as it must while this one is busy: on a
                    // loaded machine a sleep alone may let one thread run
                    // them all.
                    let start = std::time::Instant::now();
                    while i == 0
                        && n > 2
                        && spread
                        && threads.lock().unwrap().len() < 2
                        && start.elapsed() < std::time::Duration::from_secs(20)
                    {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                    std::thread::sleep(std::time::Duration::from_micros((37 - i as u64) * 50));
                    i
                },
                |i| seen.push(i),
            );
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "{n}");
            if n > 2 && spread {
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
                threads.lock().unwrap().insert(std::thread::current().id());
                if r.start == RUN * 3 || r.start == RUN * 17 {
                    std::thread::sleep(std::time::Duration::from_millis(30));
                }
                // Held until another thread has taken a run, as one must
                // while this one is busy (see `each_item_is_taken_in_order`).
                let start = std::time::Instant::now();
                while r.start == RUN * 3
                    && rayon::current_num_threads() > 1
                    && threads.lock().unwrap().len() < 2
                    && start.elapsed() < std::time::Duration::from_secs(20)
                {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
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
