//! Reading the items of one array (or the member values of one object)
//! while the document is parsed, on every core: what the skill, vAgenda
//! and skillbook readers stand on.
//!
//! A [`Plan`] says which array to take and makes, at its first item, the
//! [`ReadItems`] that reads its items. The items go to the reader in runs
//! (on the pool's threads and the parser's own, [`ace_exec::par::Ordered`]),
//! parsed there if the parser handed them over as text, and each run's
//! read goes to a [`TakeItems`] in order. Only the first array the plan
//! takes is read; the outcome says how many it took, so that a reader can
//! tell when what it read is not all it needs.

use std::sync::Arc;

use ace_exec::par::{Ordered, RunWork, TakeRuns};
use ace_model::{Diagnostic, Span};

use crate::{Document, ItemParser, ItemSink, Node, Taken};

/// Reads runs of items, on whichever thread takes the run.
pub trait ReadItems: Send + Sync {
    /// What reading a run gives.
    type Run: Send;
    /// The read of a run of `len` items, before the first.
    fn run(&self, len: usize) -> Self::Run;
    /// Reads item `index` into `run`. `node` is `None` when the item came
    /// as text and does not parse: the document does not either. False:
    /// read no more of this run.
    fn item(&self, run: &mut Self::Run, index: usize, node: Option<&mut Node>) -> bool;
    /// Reads item `index`, which came as the text at `span` of `text`,
    /// straight from that text where this reader can: the read must be
    /// the one [`ReadItems::item`] would make of its node. False: it
    /// cannot (nothing is added to `run`), and the item is parsed and
    /// given to `item`. By default every item is parsed.
    fn item_text(&self, run: &mut Self::Run, index: usize, text: &str, span: Span) -> bool {
        let _ = (run, index, text, span);
        false
    }
}

/// Takes the runs' reads in order, on the parser's thread.
pub trait TakeItems<R> {
    /// A run's read.
    fn take(&mut self, run: R);
}

/// What a stream takes, and the reader of what it takes.
pub trait Plan<'e> {
    type Read: ReadItems + 'e;
    type Take: TakeItems<<Self::Read as ReadItems>::Run>;
    /// Whether to take the array at `path` (the keys from the root).
    fn wants(&mut self, path: &[&str]) -> bool;
    /// Whether to take the member values of the object at `path`, as the
    /// items of an array ([`ItemSink::wants_members`]).
    fn wants_members(&mut self, path: &[&str]) -> bool {
        let _ = path;
        false
    }
    /// The reader of the first taken array, made at its first item, which
    /// `parse` (when the item came as text) may parse here to learn what
    /// the reader needs; `take` learns it too.
    fn begin(
        &mut self,
        take: &mut Self::Take,
        first: &mut Taken,
        parse: Option<&mut (dyn FnMut(Span) -> Option<Node> + '_)>,
    ) -> Self::Read;
}

/// What a streamed parse leaves besides the document.
pub struct Streamed<P, T> {
    pub plan: P,
    /// Every item of the first taken array, read and taken.
    pub take: T,
    /// How many arrays (and objects) the plan took.
    pub arrays: usize,
    /// Some item came as text: if the document does not parse, the first
    /// error may be in an item read on another thread, and only a parse
    /// in one piece finds it.
    pub handed_text: bool,
}

/// Parses `text` with `parse` and a sink that reads, as they are parsed,
/// the items of the first array `plan` takes, giving them to `take` in
/// order. Items come as text, to be parsed where they are read, when
/// `split` and the parser can hand them over so.
pub fn read_items<'e, P: Plan<'e>>(
    text: &'e str,
    split: bool,
    plan: P,
    take: P::Take,
    parse: impl FnOnce(&mut dyn ItemSink) -> Result<Document, Diagnostic>,
) -> (Result<Document, Diagnostic>, Streamed<P, P::Take>) {
    std::thread::scope(|scope| {
        let mut sink = Sink {
            plan,
            waiting: Some(take),
            reads: None,
            scope,
            text,
            split,
            parser: None,
            arrays: 0,
            handed_text: false,
        };
        let doc = parse(&mut sink);
        let take = match (sink.reads, sink.waiting) {
            (Some(reads), _) => reads.finish().0,
            (None, Some(take)) => take,
            (None, None) => unreachable!("the take waits or is reading"),
        };
        let streamed = Streamed {
            plan: sink.plan,
            take,
            arrays: sink.arrays,
            handed_text: sink.handed_text,
        };
        (doc, streamed)
    })
}

/// A [`ReadItems`] as the work queue's work: items parsed if they came
/// as text, then read.
struct Reader<'e, R> {
    read: R,
    text: &'e str,
    parser: Option<Arc<dyn ItemParser>>,
}

impl<R: ReadItems> RunWork for Reader<'_, R> {
    type Item = (usize, Taken);
    type Out = R::Run;

    fn work(&self, run: Vec<(usize, Taken)>) -> Self::Out {
        let mut read = self.read.run(run.len());
        let mut parse = self.parser.as_deref().map(|p| p.start(self.text));
        // Each item is dropped once read, here: the thread that parsed it
        // frees it, while it is still in the cache.
        for (index, mut item) in run {
            if let Taken::Text(span) = item {
                if self.read.item_text(&mut read, index, self.text, span) {
                    continue;
                }
            }
            if !self
                .read
                .item(&mut read, index, item.resolve(parse.as_deref_mut()))
            {
                break;
            }
        }
        read
    }
}

struct Taker<T>(T);

impl<R, T: TakeItems<R>> TakeRuns<R> for Taker<T> {
    fn take(&mut self, run: R) {
        self.0.take(run);
    }
}

/// The work queue of a plan's reads.
type Reads<'s, 'e, P> =
    Ordered<'s, 'e, Reader<'e, <P as Plan<'e>>::Read>, Taker<<P as Plan<'e>>::Take>>;

struct Sink<'s, 'e, P: Plan<'e>> {
    plan: P,
    /// The take, until the first item starts the reads.
    waiting: Option<P::Take>,
    reads: Option<Reads<'s, 'e, P>>,
    scope: &'s std::thread::Scope<'s, 'e>,
    text: &'e str,
    split: bool,
    parser: Option<Arc<dyn ItemParser>>,
    arrays: usize,
    handed_text: bool,
}

impl<'e, P: Plan<'e>> Sink<'_, 'e, P> {
    fn push(&mut self, index: usize, mut item: Taken) {
        if self.arrays != 1 {
            return;
        }
        if let Some(reads) = &mut self.reads {
            reads.push((index, item));
            return;
        }
        let Some(mut take) = self.waiting.take() else {
            return;
        };
        let read = {
            let mut parse = self.parser.as_deref().map(|p| p.start(self.text));
            self.plan.begin(&mut take, &mut item, parse.as_deref_mut())
        };
        let work = Reader {
            read,
            text: self.text,
            parser: self.parser.clone(),
        };
        let mut reads = Ordered::new(self.scope, work, Taker(take));
        reads.push((index, item));
        self.reads = Some(reads);
    }
}

impl<'e, P: Plan<'e>> ItemSink for Sink<'_, 'e, P> {
    fn wants(&mut self, path: &[&str]) -> bool {
        let wanted = self.plan.wants(path);
        self.arrays += usize::from(wanted);
        wanted
    }

    fn wants_members(&mut self, path: &[&str]) -> bool {
        let wanted = self.plan.wants_members(path);
        self.arrays += usize::from(wanted);
        wanted
    }

    fn text_items(&mut self, parser: Arc<dyn ItemParser>) -> bool {
        let first = self.split && self.arrays == 1 && self.parser.is_none();
        if first {
            self.parser = Some(parser);
        }
        first
    }

    fn item(&mut self, index: usize, node: Node) {
        self.push(index, Taken::Node(node));
    }

    fn item_text(&mut self, index: usize, span: Span) {
        self.handed_text = true;
        self.push(index, Taken::Text(span));
    }
}
