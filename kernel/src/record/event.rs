//! The event records [`crate::driver`] and the document layer write (tags `0x01..=0x0F`),
//! named: each encodes exactly as the tuple the driver writes (postcard writes a struct as the
//! tuple of its fields), which the tests below check.
use super::log_record;
use crate::log::{
    TAG_EVENT_ARRIVAL, TAG_EVENT_CANCEL, TAG_EVENT_CAPACITY, TAG_EVENT_FINISH, TAG_EVENT_HOST,
    TAG_EVENT_JSON, TAG_EVENT_SERVER_DOWN, TAG_EVENT_SERVER_UP, TAG_EVENT_SLOT,
};
use crate::Slot;
use serde::{Deserialize, Serialize};

/// A job event (`JobArrived`, `JobFinished`, `JobCancelled`): `(t, j)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobEvent {
    /// The event's slot t.
    pub slot: Slot,
    /// Job index j.
    pub job: u32,
}

/// `JobArrived` (tag [`TAG_EVENT_ARRIVAL`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ArrivalEvent(pub JobEvent);

/// `JobFinished` (tag [`TAG_EVENT_FINISH`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FinishEvent(pub JobEvent);

/// `JobCancelled` (tag [`TAG_EVENT_CANCEL`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CancelEvent(pub JobEvent);

/// `SlotAdvanced` (tag [`TAG_EVENT_SLOT`]): `t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotEvent {
    /// The slot t.
    pub slot: Slot,
}

/// The host-driven marker (tag [`TAG_EVENT_HOST`]): its format version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostEvent {
    /// The marker's format version.
    pub version: u32,
}

/// A server event (`ServerDown`, `ServerUp`): `(t, h)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerEvent {
    /// The event's slot t.
    pub slot: Slot,
    /// Server index h.
    pub server: u32,
}

/// `ServerDown` (tag [`TAG_EVENT_SERVER_DOWN`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ServerDownEvent(pub ServerEvent);

/// `ServerUp` (tag [`TAG_EVENT_SERVER_UP`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ServerUpEvent(pub ServerEvent);

/// `Capacity` (tag [`TAG_EVENT_CAPACITY`]): `(t, h, entries)`, the entries a slice as written
/// and a vector as read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapacityEvent<C> {
    /// The event's slot t.
    pub slot: Slot,
    /// Server index h.
    pub server: u32,
    /// The capacity vector in force from t.
    pub capacity: C,
}

/// A host's event as its canonical JSON text (tag [`TAG_EVENT_JSON`]), written by the document
/// layer before the kernel event records it causes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonEvent<S> {
    /// The JSON text.
    pub json: S,
}

log_record!(ArrivalEvent, TAG_EVENT_ARRIVAL, "event arrival");
log_record!(SlotEvent, TAG_EVENT_SLOT, "event slot advanced");
log_record!(FinishEvent, TAG_EVENT_FINISH, "event finish");
log_record!(HostEvent, TAG_EVENT_HOST, "event host-driven");
log_record!(CancelEvent, TAG_EVENT_CANCEL, "event cancel");
log_record!(ServerDownEvent, TAG_EVENT_SERVER_DOWN, "event server down");
log_record!(ServerUpEvent, TAG_EVENT_SERVER_UP, "event server up");

impl<C> super::LogRecord for CapacityEvent<C> {
    const TAG: u8 = TAG_EVENT_CAPACITY;
    const TITLE: &'static str = "event capacity";
}

impl<S> super::LogRecord for JsonEvent<S> {
    const TAG: u8 = TAG_EVENT_JSON;
    const TITLE: &'static str = "event submission";
}

#[cfg(test)]
mod tests {
    use super::*;

    /// postcard into a fixed buffer (no alloc in the kernel's own tests).
    fn enc<T: Serialize + ?Sized>(v: &T, buf: &mut [u8; 64]) -> usize {
        postcard::to_slice(v, buf).unwrap().len()
    }

    fn same<A: Serialize, B: Serialize + ?Sized>(a: &A, b: &B) {
        let (mut x, mut y) = ([0u8; 64], [0u8; 64]);
        let (n, m) = (enc(a, &mut x), enc(b, &mut y));
        assert_eq!(x[..n], y[..m]);
    }

    #[test]
    fn event_records_encode_as_the_driver_writes_them() {
        let job = JobEvent { slot: 300, job: 7 };
        same(&ArrivalEvent(job), &(300u32, 7u32));
        same(&FinishEvent(job), &(300u32, 7u32));
        same(&CancelEvent(job), &(300u32, 7u32));
        same(&SlotEvent { slot: 300 }, &300u32);
        same(&HostEvent { version: 1 }, &1u32);
        let server = ServerEvent { slot: 9, server: 2 };
        same(&ServerDownEvent(server), &(9u32, 2u32));
        same(&ServerUpEvent(server), &(9u32, 2u32));
        let c: &[f64] = &[1.5, 2.0];
        same(
            &CapacityEvent {
                slot: 9,
                server: 2,
                capacity: c,
            },
            &(9u32, 2u32, c),
        );
        same(&JsonEvent { json: "{}" }, &"{}");
    }
}
