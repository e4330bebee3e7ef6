//! A list of servers given by their capacity vectors, each optionally named (`docs/formats.md`,
//! "Server ids"): `[c_1, ..., c_R]` or `{"id": "gpu-node-7", "capacity": [c_1, ..., c_R]}`.
//!
//! A server without an `id` is named by its kind's default (`w<h>`, `ps<k>`, `h<h>`): the id its
//! `occupancy` spans and the open-world events (`docs/open-world.md`) use. The list reads and
//! writes both shapes and derefs to the capacity vectors, so code that only needs capacities
//! reads it as the `Vec<Vec<f64>>` it always was; a list without ids is written exactly as
//! before.
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Deref, DerefMut};

/// Servers as capacity vectors, each with an optional explicit id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerList {
    caps: Vec<Vec<f64>>,
    /// Explicit ids by position (shorter than `caps` when the last servers have none).
    ids: Vec<Option<String>>,
}

impl ServerList {
    /// The explicit id of server `i`, if it has one.
    pub fn id(&self, i: usize) -> Option<&str> {
        self.ids.get(i).and_then(|x| x.as_deref())
    }

    /// Server `i`'s id: its explicit one, else `default(i)`.
    pub fn id_or(&self, i: usize, default: impl Fn(usize) -> String) -> String {
        self.id(i).map_or_else(|| default(i), str::to_string)
    }

    /// Gives server `i` an explicit id.
    pub fn set_id(&mut self, i: usize, id: impl Into<String>) {
        if self.ids.len() <= i {
            self.ids.resize(i + 1, None);
        }
        self.ids[i] = Some(id.into());
    }

    /// Whether any server has an explicit id.
    pub fn has_ids(&self) -> bool {
        self.ids.iter().any(Option::is_some)
    }
}

impl From<Vec<Vec<f64>>> for ServerList {
    fn from(caps: Vec<Vec<f64>>) -> Self {
        ServerList {
            caps,
            ids: Vec::new(),
        }
    }
}

impl FromIterator<Vec<f64>> for ServerList {
    fn from_iter<I: IntoIterator<Item = Vec<f64>>>(iter: I) -> Self {
        ServerList::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl<'a> IntoIterator for &'a ServerList {
    type Item = &'a Vec<f64>;
    type IntoIter = std::slice::Iter<'a, Vec<f64>>;
    fn into_iter(self) -> Self::IntoIter {
        self.caps.iter()
    }
}

impl Deref for ServerList {
    type Target = Vec<Vec<f64>>;
    fn deref(&self) -> &Vec<Vec<f64>> {
        &self.caps
    }
}

impl DerefMut for ServerList {
    fn deref_mut(&mut self) -> &mut Vec<Vec<f64>> {
        &mut self.caps
    }
}

/// A named server as written.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Named<C> {
    id: String,
    capacity: C,
}

impl Serialize for ServerList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.caps.len()))?;
        for (i, c) in self.caps.iter().enumerate() {
            match self.id(i) {
                None => seq.serialize_element(c)?,
                Some(id) => seq.serialize_element(&Named {
                    id: id.to_string(),
                    capacity: c,
                })?,
            }
        }
        seq.end()
    }
}

/// One entry as read: its capacities and its explicit id, if any. Read with
/// `deserialize_any`, so an error inside an entry is reported at the entry's own path
/// (`worker_servers[3]`, `worker_servers[3][1]`, `worker_servers[3].capacity`).
struct Entry(Vec<f64>, Option<String>);

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entry;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of capacities or an object {\"id\", \"capacity\"}")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Entry, A::Error> {
                let c = Vec::<f64>::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
                Ok(Entry(c, None))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Entry, A::Error> {
                let n = Named::<Vec<f64>>::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Entry(n.capacity, Some(n.id)))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for ServerList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ServerList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of servers")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ServerList, A::Error> {
                let mut out = ServerList::default();
                while let Some(Entry(c, id)) = seq.next_element::<Entry>()? {
                    if let Some(id) = id {
                        out.set_id(out.caps.len(), id);
                    }
                    out.caps.push(c);
                }
                Ok(out)
            }
        }
        d.deserialize_seq(V)
    }
}

/// Checks that every explicit id of `ids` (all the scenario's servers, kernel index order) is a
/// non-empty string of at most `ID_BYTES_MAX` bytes and no two servers share one.
pub fn check_ids(ids: &[String]) -> Result<(), crate::InputError> {
    let mut seen = std::collections::HashMap::new();
    for (i, id) in ids.iter().enumerate() {
        let bad = |why: String| crate::InputError::new(format!("server {i}"), "id", why);
        if id.is_empty() {
            return Err(bad("must not be empty".into()));
        }
        if id.len() > mlsched_kernel::limits::ID_BYTES_MAX {
            return Err(bad(format!(
                "{} bytes exceed this build's limit ID_BYTES_MAX = {}",
                id.len(),
                mlsched_kernel::limits::ID_BYTES_MAX
            )));
        }
        if let Some(j) = seen.insert(id.as_str(), i) {
            let shown = crate::text::terminal_safe(id);
            return Err(bad(format!("`{shown}` is also the id of server {j}")));
        }
    }
    Ok(())
}
