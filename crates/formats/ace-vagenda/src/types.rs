//! Which vAgenda type each object of a document is, known from where it
//! sits (notes §3.3–3.7). Two things depend on it: which `null`s mean
//! "absent" (a typed field of a known type; never a value inside `metadata`,
//! `oldValue`, `newValue` or an unknown field, notes §5), and which TRON
//! class an object is written as.

use ace_tron::{Item, Items, Obj};
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Root,
    Info,
    TodoList,
    TodoItem,
    Plan,
    Phase,
    PlanItem,
    Narrative,
    Playbook,
    /// An ACE entry (`id`, `kind`, `text`).
    PlaybookEntry,
    /// An event of the Playbooks extension, in `entries` (v0.2).
    PlaybookEvent,
    /// An event in `items` (v0.3 and later).
    PlaybookItem,
    PlaybookMetrics,
    PlaybookPatch,
    PlaybookPatchOp,
    Agent,
    Change,
    Fork,
    Lock,
    Participant,
    Uri,
    Location,
    Reference,
    Attachment,
    RecurrenceRule,
    Reminder,
}

/// Where a value sits: one object of a type, a list of them, or a map of
/// them by free keys.
enum Child {
    One(Ty),
    List(Ty),
    MapOf(Ty),
    /// A plain value: nothing below it is typed.
    Free,
}

impl Ty {
    /// The TRON class name (the spec's type name).
    pub fn class(self, info_key: &str) -> Option<&'static str> {
        Some(match self {
            Ty::Root => return None,
            Ty::Info => {
                if info_key == "vContextInfo" {
                    "vContextInfo"
                } else {
                    "vAgendaInfo"
                }
            }
            Ty::TodoList => "TodoList",
            Ty::TodoItem => "TodoItem",
            Ty::Plan => "Plan",
            Ty::Phase => "Phase",
            Ty::PlanItem => "PlanItem",
            Ty::Narrative => "Narrative",
            Ty::Playbook => "Playbook",
            Ty::PlaybookEntry | Ty::PlaybookEvent => "PlaybookEntry",
            Ty::PlaybookItem => "PlaybookItem",
            Ty::PlaybookMetrics => "PlaybookMetrics",
            Ty::PlaybookPatch => "PlaybookPatch",
            Ty::PlaybookPatchOp => "PlaybookPatchOp",
            Ty::Agent => "Agent",
            Ty::Change => "Change",
            Ty::Fork => "Fork",
            Ty::Lock => "Lock",
            Ty::Participant => "Participant",
            Ty::Uri => "URI",
            Ty::Location => "Location",
            Ty::Reference => "Reference",
            Ty::Attachment => "Attachment",
            Ty::RecurrenceRule => "RecurrenceRule",
            Ty::Reminder => "Reminder",
        })
    }

    /// The fields the schemas type (union over 0.2–0.4, schema order): for
    /// these a `null` means absent.
    pub fn typed(self) -> &'static [&'static str] {
        match self {
            Ty::Root => &[
                "vAgendaInfo",
                "vContextInfo",
                "todoList",
                "plan",
                "playbook",
            ],
            Ty::Info => &[
                "version",
                "author",
                "description",
                "metadata",
                "created",
                "updated",
                "timezone",
            ],
            Ty::TodoList => &[
                "items",
                "id",
                "uid",
                "title",
                "description",
                "narrative",
                "tags",
                "metadata",
                "uris",
                "agent",
                "lastModifiedBy",
                "changeLog",
                "sequence",
                "fork",
                "playbook",
            ],
            Ty::TodoItem => &[
                "id",
                "uid",
                "title",
                "status",
                "description",
                "narrative",
                "priority",
                "tags",
                "metadata",
                "created",
                "updated",
                "completed",
                "dueDate",
                "percentComplete",
                "timezone",
                "dependencies",
                "participants",
                "relatedComments",
                "uris",
                "recurrence",
                "reminders",
                "classification",
                "sequence",
                "lastModifiedBy",
                "lockedBy",
            ],
            Ty::Plan => &[
                "id",
                "uid",
                "title",
                "status",
                "author",
                "reviewers",
                "description",
                "tags",
                "metadata",
                "narratives",
                "phases",
                "items",
                "uris",
                "references",
                "attachments",
                "created",
                "updated",
                "timezone",
                "agent",
                "lastModifiedBy",
                "changeLog",
                "sequence",
                "fork",
                "playbook",
            ],
            Ty::Phase | Ty::PlanItem => &[
                "id",
                "uid",
                "title",
                "status",
                "description",
                "narrative",
                "tags",
                "metadata",
                "dependencies",
                "subPhases",
                "subItems",
                "todoList",
                "participants",
                "location",
                "uris",
                "reminders",
                "classification",
                "startDate",
                "endDate",
                "percentComplete",
                "timezone",
                "sequence",
                "lastModifiedBy",
                "lockedBy",
            ],
            Ty::Narrative => &["title", "content"],
            Ty::Playbook => &[
                "version", "created", "updated", "entries", "items", "metrics",
            ],
            Ty::PlaybookEntry => &[
                "id",
                "kind",
                "title",
                "text",
                "tags",
                "evidence",
                "confidence",
                "helpfulCount",
                "harmfulCount",
                "feedbackType",
                "createdAt",
                "updatedAt",
                "status",
                "deprecatedReason",
                "supersedes",
                "supersededBy",
                "duplicateOf",
                "metadata",
            ],
            Ty::PlaybookEvent | Ty::PlaybookItem => &[
                "eventId",
                "targetId",
                "operation",
                "prevEventId",
                "kind",
                "title",
                "text",
                "narrative",
                "tags",
                "evidence",
                "confidence",
                "delta",
                "feedbackType",
                "createdAt",
                "status",
                "deprecatedReason",
                "supersedes",
                "supersededBy",
                "duplicateOf",
                "reason",
                "metadata",
            ],
            Ty::PlaybookMetrics => &["totalEntries", "averageConfidence", "lastUpdated"],
            Ty::PlaybookPatch => &["playbookId", "baseDocumentSequence", "operations"],
            Ty::PlaybookPatchOp => &["op", "entryId", "entry", "delta", "reason"],
            Ty::Agent => &["id", "type", "name", "email", "model", "version"],
            // `oldValue` and `newValue` take any value, null included.
            Ty::Change => &[
                "sequence",
                "timestamp",
                "agent",
                "operation",
                "reason",
                "path",
                "description",
                "snapshotUri",
                "relatedChanges",
            ],
            Ty::Fork => &[
                "parentUid",
                "parentSequence",
                "forkedAt",
                "forkReason",
                "mergeStatus",
            ],
            Ty::Lock => &["agent", "acquiredAt", "expiresAt", "type"],
            Ty::Participant => &["id", "name", "email", "role", "status"],
            Ty::Uri => &["uri", "description", "type", "title", "tags"],
            Ty::Location => &["name", "address", "geo", "url"],
            Ty::Reference => &["type", "path", "line", "start", "end", "description"],
            Ty::Attachment => &["name", "type", "path", "url", "encoding", "data"],
            Ty::RecurrenceRule => &[
                "frequency",
                "interval",
                "until",
                "count",
                "byDay",
                "byMonth",
                "byMonthDay",
            ],
            Ty::Reminder => &["trigger", "action", "description"],
        }
    }

    fn child(self, key: &str, value: &Value) -> Child {
        use Child::*;
        match (self, key) {
            (Ty::Root, "vAgendaInfo" | "vContextInfo") => One(Ty::Info),
            (Ty::Root, "todoList") | (Ty::Phase | Ty::PlanItem, "todoList") => One(Ty::TodoList),
            (Ty::Root, "plan") => One(Ty::Plan),
            (Ty::Root | Ty::TodoList | Ty::Plan, "playbook") => One(Ty::Playbook),
            (Ty::TodoList, "items") => List(Ty::TodoItem),
            (Ty::Plan, "phases") | (Ty::Phase, "subPhases") => List(Ty::Phase),
            (Ty::Plan, "items") | (Ty::PlanItem, "subItems") => List(Ty::PlanItem),
            (Ty::Plan, "narratives") => MapOf(Ty::Narrative),
            (Ty::Plan, "references") => List(Ty::Reference),
            (Ty::Plan, "attachments") => List(Ty::Attachment),
            (
                Ty::TodoList | Ty::Plan | Ty::TodoItem | Ty::Phase | Ty::PlanItem,
                "lastModifiedBy",
            )
            | (Ty::TodoList | Ty::Plan | Ty::Change | Ty::Lock, "agent") => One(Ty::Agent),
            (Ty::TodoList | Ty::Plan, "changeLog") => List(Ty::Change),
            (Ty::TodoList | Ty::Plan, "fork") => One(Ty::Fork),
            (Ty::TodoItem | Ty::Phase | Ty::PlanItem, "lockedBy") => One(Ty::Lock),
            (Ty::TodoItem | Ty::Phase | Ty::PlanItem, "participants") => List(Ty::Participant),
            (Ty::TodoItem | Ty::Phase | Ty::PlanItem, "reminders") => List(Ty::Reminder),
            (Ty::TodoItem, "recurrence") => One(Ty::RecurrenceRule),
            (Ty::Phase | Ty::PlanItem, "location") => One(Ty::Location),
            (Ty::TodoList | Ty::TodoItem | Ty::Plan | Ty::Phase | Ty::PlanItem, "uris") => {
                List(Ty::Uri)
            }
            (Ty::Playbook, "entries") => {
                let events = value
                    .as_array()
                    .and_then(|a| a.first())
                    .is_some_and(|e| e.get("eventId").is_some());
                List(if events {
                    Ty::PlaybookEvent
                } else {
                    Ty::PlaybookEntry
                })
            }
            (Ty::Playbook, "items") => List(Ty::PlaybookItem),
            (Ty::Playbook, "metrics") => One(Ty::PlaybookMetrics),
            (Ty::PlaybookPatch, "operations") => List(Ty::PlaybookPatchOp),
            (Ty::PlaybookPatchOp, "entry") => One(Ty::PlaybookEntry),
            _ => Free,
        }
    }
}

/// Removes every `null` that stands for an absent typed field, in place.
pub fn drop_absent_nulls(value: &mut Value, ty: Ty) {
    let Value::Object(map) = value else { return };
    let typed = ty.typed();
    map.retain(|k, v| !(v.is_null() && typed.contains(&k.as_str())));
    for (k, v) in map.iter_mut() {
        match ty.child(k, v) {
            Child::One(t) => drop_absent_nulls(v, t),
            Child::List(t) => {
                if let Value::Array(items) = v {
                    items.iter_mut().for_each(|i| drop_absent_nulls(i, t));
                }
            }
            Child::MapOf(t) => {
                if let Value::Object(m) = v {
                    for (key, item) in m.iter_mut() {
                        // v0.2 `narratives.custom` is a list of narratives.
                        if let Value::Array(items) = item {
                            if key == "custom" {
                                items.iter_mut().for_each(|i| drop_absent_nulls(i, t));
                            }
                        } else {
                            drop_absent_nulls(item, t);
                        }
                    }
                }
            }
            Child::Free => {}
        }
    }
}

/// Whether [`drop_absent_nulls`] would change `value`: a JSON document is
/// then copied before it is, and almost none needs it.
pub fn has_absent_nulls(value: &Value, ty: Ty) -> bool {
    let Value::Object(map) = value else {
        return false;
    };
    let typed = ty.typed();
    map.iter().any(|(k, v)| {
        (v.is_null() && typed.contains(&k.as_str()))
            || match ty.child(k, v) {
                Child::One(t) => has_absent_nulls(v, t),
                Child::List(t) => v
                    .as_array()
                    .is_some_and(|items| items.iter().any(|i| has_absent_nulls(i, t))),
                Child::MapOf(t) => v.as_object().is_some_and(|m| {
                    m.iter().any(|(key, item)| match item {
                        Value::Array(items) => {
                            key == "custom" && items.iter().any(|i| has_absent_nulls(i, t))
                        }
                        _ => has_absent_nulls(item, t),
                    })
                }),
                Child::Free => false,
            }
    })
}

/// Where an array of the document is written from lazily built items
/// instead of its (empty) value: the array itself, found by address.
pub type Slot<'a> = Option<(&'a Value, &'a dyn Items)>;

/// The TRON tree of `value` as type `ty` (known types become classes),
/// with `slot`'s array written from its items.
pub fn item_with<'a>(value: &'a Value, ty: Ty, info_key: &'a str, slot: Slot<'a>) -> Item<'a> {
    if let Some((at, items)) = slot {
        if std::ptr::eq(at, value) {
            return Item::Lazy(items);
        }
    }
    let Value::Object(map) = value else {
        return Item::Value(value);
    };
    Item::Object(Obj {
        class: ty.class(info_key),
        null_is_absent: ty.typed(),
        members: members(map, ty, info_key, slot),
    })
}

fn members<'a>(
    map: &'a Map<String, Value>,
    ty: Ty,
    info_key: &'a str,
    slot: Slot<'a>,
) -> Vec<(&'a str, Item<'a>)> {
    let typed = |v, t| item_with(v, t, info_key, slot);
    map.iter()
        .map(|(k, v)| {
            let child = match ty.child(k, v) {
                // The slot's array, whatever type it would have.
                _ if slot.is_some_and(|(at, _)| std::ptr::eq(at, v)) => typed(v, ty),
                Child::One(t) => typed(v, t),
                Child::List(t) => match v {
                    Value::Array(items) => Item::Array(items.iter().map(|i| typed(i, t)).collect()),
                    other => Item::Value(other),
                },
                Child::MapOf(t) => match v {
                    Value::Object(m) => Item::Object(Obj {
                        class: None,
                        null_is_absent: &[],
                        members: m
                            .iter()
                            .map(|(key, i)| {
                                let inner = match i {
                                    Value::Array(list) if key == "custom" => {
                                        Item::Array(list.iter().map(|n| typed(n, t)).collect())
                                    }
                                    other => typed(other, t),
                                };
                                (key.as_str(), inner)
                            })
                            .collect(),
                    }),
                    other => Item::Value(other),
                },
                Child::Free => Item::Value(v),
            };
            (k.as_str(), child)
        })
        .collect()
}
