//! A log record's identity, stated once beside its layout.
//!
//! Every record type the kernel writes to a decision log ([`crate::log`]) implements
//! [`LogRecord`]: its tag and its title, the name people read in `mlsched replay` and
//! `mlsched export` (`oasis slot`). A decision record also implements [`DecisionRecord`]: its
//! name among the engine's decisions (`oasis.slot`). The record's serde derives are its layout
//! (postcard writes the fields in declaration order), so the document layer decodes a body with
//! the kernel's own type and names it with these constants: nothing outside the kernel spells a
//! tag, a title or a field list again.
//!
//! Record types that borrow (an admitted schedule's `[h, y]` pairs, a capacity vector, a JSON
//! text) are generic over their container, so the same layout reads back into an owned value
//! ([`crate::oasis::OasisSlotRecordOf`], [`event::CapacityEvent`], [`event::JsonEvent`]).
pub mod event;

/// A record type of the decision log: its tag and its title.
pub trait LogRecord {
    /// The tag it is written under (the first one, when it takes several: [`Self::TAGS`]).
    const TAG: u8;
    /// Consecutive tags from [`Self::TAG`] it is written under: 1, or for a baseline record one
    /// per policy (`TAG_BASELINE` + the policy's code).
    const TAGS: u8 = 1;
    /// What the record is, as people read it (`mlsched replay`, `mlsched export`): `oasis slot`,
    /// `event arrival`.
    const TITLE: &'static str;
}

/// A decision record: its name among the engine's decisions (`<family>.<record>`,
/// `docs/engine.md`).
pub trait DecisionRecord: LogRecord {
    /// The decision's name: `oasis.slot`, `preempt.dispatch`, `baseline.cancelled`.
    const NAME: &'static str;
}

/// `log_record!(Type, tag, "title")` implements [`LogRecord`]; with `, "name"` also
/// [`DecisionRecord`]; `tags n` before the title for a record written under `n` tags.
macro_rules! log_record {
    ($t:ty, $tag:expr, $(tags $n:expr,)? $title:literal) => {
        impl $crate::record::LogRecord for $t {
            const TAG: u8 = $tag;
            $(const TAGS: u8 = $n;)?
            const TITLE: &'static str = $title;
        }
    };
    ($t:ty, $tag:expr, $(tags $n:expr,)? $title:literal, $name:literal) => {
        $crate::record::log_record!($t, $tag, $(tags $n,)? $title);
        impl $crate::record::DecisionRecord for $t {
            const NAME: &'static str = $name;
        }
    };
}
pub(crate) use log_record;
