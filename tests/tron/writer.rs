//! The writer's output reads back to the value it was given, in both root
//! styles, with classes where the caller asked for them.

use ace_tron::{parse, write, Item, Obj, Options, RootStyle, WriteOptions};
use serde_json::{json, Value};

fn read(text: &str) -> Value {
    parse(text, &Options::default())
        .unwrap_or_else(|d| panic!("{}\n{text}", d.message))
        .root
        .to_value()
}

fn both(item: &Item<'_>) -> [String; 2] {
    [RootStyle::Implicit, RootStyle::Braced].map(|root| {
        write(
            item,
            &WriteOptions {
                root,
                ..WriteOptions::default()
            },
        )
    })
}

#[test]
fn plain_values_round_trip() {
    let values = [
        json!({"a": 1, "b": [true, false, null], "c": {"d": "e\n\"f\"\u{1}"}}),
        json!({"class": 1, "true": 2, "with space": 3, "ünï": 4, "": 5}),
        json!([1, 2.5, -3, "x"]),
        json!("just a string"),
        json!({}),
        json!([]),
        json!({"long": ["a fairly long string to force a break".repeat(3), "b"]}),
    ];
    for v in &values {
        for text in both(&Item::Value(v)) {
            assert_eq!(&read(&text), v, "{text}");
        }
    }
}

fn point<'a>(members: Vec<(&'a str, Item<'a>)>, nullable: &'a [&'a str]) -> Item<'a> {
    Item::Object(Obj {
        class: Some("Point"),
        null_is_absent: nullable,
        members,
    })
}

#[test]
fn classes_are_used_and_absent_fields_become_null_only_where_allowed() {
    let (one, two, three) = (json!(1), json!(2), json!(3));
    let root = Item::Object(Obj {
        class: None,
        null_is_absent: &[],
        members: vec![
            (
                "points",
                Item::Array(vec![
                    point(
                        vec![("x", Item::Value(&one)), ("y", Item::Value(&two))],
                        &["z"],
                    ),
                    point(
                        vec![
                            ("x", Item::Value(&one)),
                            ("y", Item::Value(&two)),
                            ("z", Item::Value(&three)),
                        ],
                        &["z"],
                    ),
                    // `y` may not be written as null: this one uses `{}`.
                    point(vec![("x", Item::Value(&three))], &["z"]),
                ]),
            ),
            ("class", Item::Value(&one)),
        ],
    });
    let [implicit, braced] = both(&root);
    assert_eq!(
        implicit,
        "class Point: x, y, z\n\npoints: [Point(1, 2, null), Point(1, 2, 3), {\"x\": 3}]\n\"class\": 1\n"
    );
    // Braced TRON is for the official parser, which keeps a class's null:
    // there an instance that lacks a property is written in `{}` notation.
    assert!(braced.starts_with("class Point: x, y, z\n\n{"), "{braced}");
    assert!(braced.contains("{\"x\": 1, \"y\": 2}"), "{braced}");
    assert!(!braced.contains("null"), "{braced}");
    assert_eq!(
        read(&implicit),
        json!({"points": [{"x": 1, "y": 2, "z": null}, {"x": 1, "y": 2, "z": 3}, {"x": 3}], "class": 1})
    );
    assert_eq!(
        read(&braced),
        json!({"points": [{"x": 1, "y": 2}, {"x": 1, "y": 2, "z": 3}, {"x": 3}], "class": 1})
    );
}

#[test]
fn property_names_that_are_not_names_are_quoted_in_headers() {
    let v = json!(1);
    let obj = Item::Object(Obj {
        class: Some("A"),
        null_is_absent: &[],
        members: vec![("null", Item::Value(&v)), ("Content-Type", Item::Value(&v))],
    });
    let text = write(&Item::Array(vec![obj]), &WriteOptions::default());
    assert!(
        text.starts_with("class A: \"null\", \"Content-Type\"\n"),
        "{text}"
    );
    assert_eq!(read(&text), json!([{"null": 1, "Content-Type": 1}]));
}

#[test]
fn long_values_break_over_lines_with_two_space_indentation() {
    let text_value = json!("x".repeat(120));
    let n = json!(7);
    let entry = Item::Object(Obj {
        class: Some("Entry"),
        null_is_absent: &[],
        members: vec![("id", Item::Value(&n)), ("text", Item::Value(&text_value))],
    });
    let root = Item::Object(Obj {
        class: None,
        null_is_absent: &[],
        members: vec![("entries", Item::Array(vec![entry]))],
    });
    let text = write(&root, &WriteOptions::default());
    let expected = format!(
        "class Entry: id, text\n\nentries: [\n  Entry(\n    7,\n    \"{}\"\n  )\n]\n",
        "x".repeat(120)
    );
    assert_eq!(text, expected);
    assert_eq!(
        write(&root, &WriteOptions::default()),
        text,
        "deterministic"
    );
}

/// Points built on demand, counting how often each is built.
#[derive(Debug)]
struct LazyPoints {
    values: Vec<Value>,
    built: std::sync::atomic::AtomicUsize,
}

impl ace_tron::Items for LazyPoints {
    fn len(&self) -> usize {
        self.values.len()
    }

    fn with(&self, i: usize, f: &mut dyn FnMut(&Item<'_>)) {
        self.built
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // Built afresh, as a real caller builds each item from its model.
        let v = self.values[i].clone();
        f(&point_of(&v));
    }
}

/// A `Point` instance of the object `v`; `z` may be written as `null`.
fn point_of(v: &Value) -> Item<'_> {
    let members = v
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.as_str(), Item::Value(v)))
        .collect();
    point(members, &["z"])
}

#[test]
fn a_lazy_array_writes_what_the_same_items_built_up_front_write() {
    let long = "a long label that breaks the line".repeat(2);
    let cases = [
        vec![json!({"x": 1, "y": 2}), json!({"x": 3, "y": 4, "z": 5})],
        // The second point adds a property: the first is still an instance.
        vec![json!({"x": 1}), json!({"x": 2, "z": long})],
        // A property the first point lacks and cannot be null: `{}` for it.
        vec![json!({"x": 1}), json!({"x": 2, "w": 3})],
        vec![],
        vec![json!({"x": 1})],
        // Long enough to be built and printed on several threads: a shape
        // first seen deep in the list, inside a run, still settles the
        // class (`z` first) as one pass over every point does.
        (0..50_000)
            .map(|i| match i {
                i if i > 0 && i % 7001 == 0 => json!({"z": "late", "x": i, "y": i}),
                i if i % 3 == 0 => json!({"x": i, "y": i}),
                i => json!({"x": i, "y": long}),
            })
            .collect(),
    ];
    for values in cases {
        let lazy = LazyPoints {
            values: values.clone(),
            built: std::sync::atomic::AtomicUsize::new(0),
        };
        let eager: Vec<Item<'_>> = values.iter().map(point_of).collect();
        let root = |list: Item<'_>| -> [String; 2] {
            both(&Item::Object(Obj {
                class: None,
                null_is_absent: &[],
                members: vec![("points", list)],
            }))
        };
        let expected = root(Item::Array(eager));
        let got = root(Item::Lazy(&lazy));
        assert_eq!(got, expected, "{values:?}");
        // Classes, used classes, a try on one line, the text: at most four
        // builds of an item per write, whatever the length of the list.
        let per_write = lazy.built.load(std::sync::atomic::Ordering::Relaxed) / 2;
        assert!(
            per_write <= 4 * values.len(),
            "{per_write} builds for {} items in one write",
            values.len()
        );
    }
}

#[test]
fn a_class_seen_only_after_a_lazy_array_costs_no_build_of_its_items() {
    // A playbook's `metrics` follow its entries: finding that their class
    // is used must not build every entry once more.
    let values: Vec<Value> = (0..100).map(|i| json!({"x": i, "y": i})).collect();
    let lazy = LazyPoints {
        values,
        built: std::sync::atomic::AtomicUsize::new(0),
    };
    let one = json!(1);
    let meta = |v| {
        Item::Object(Obj {
            class: Some("Meta"),
            null_is_absent: &[],
            members: vec![("v", Item::Value(v))],
        })
    };
    let doc = Item::Object(Obj {
        class: None,
        null_is_absent: &[],
        members: vec![
            ("points", Item::Lazy(&lazy)),
            ("a", meta(&one)),
            ("b", meta(&one)),
        ],
    });
    let [text, _] = both(&doc);
    assert!(text.starts_with("class Point"), "{text}");
    assert!(text.contains("class Meta: v\n"), "{text}");
    // The classes and the text: two builds an item, and a few for the
    // first item's class and the tries on one line (212 here; 311 when the
    // used classes were looked for in order).
    let per_write = lazy.built.load(std::sync::atomic::Ordering::Relaxed) / 2;
    assert!(
        per_write <= 2 * 100 + 20,
        "{per_write} builds for 100 items"
    );
}

#[test]
fn instances_in_another_order_and_borrowed_strings_keep_their_arguments() {
    let (one, two) = (json!(1), json!("two"));
    let root = Item::Array(vec![
        point(
            vec![("x", Item::Value(&one)), ("y", Item::Str("why \"q\""))],
            &[],
        ),
        // `z` comes first here, so the class is `z, x, y`: the next
        // instance holds its properties in another order.
        point(
            vec![
                ("z", Item::Str("zed")),
                ("y", Item::Value(&two)),
                ("x", Item::Str("é")),
            ],
            &[],
        ),
        point(
            vec![
                ("y", Item::Value(&one)),
                ("x", Item::Value(&two)),
                ("z", Item::Value(&one)),
            ],
            &[],
        ),
    ]);
    let [implicit, braced] = both(&root);
    assert_eq!(
        implicit,
        "class Point: z, x, y\n\n[{\"x\": 1, \"y\": \"why \\\"q\\\"\"}, Point(\"zed\", \"é\", \"two\"), Point(1, \"two\", 1)]\n"
    );
    for text in [implicit, braced] {
        assert_eq!(
            read(&text),
            json!([{"x": 1, "y": "why \"q\""}, {"x": "é", "y": "two", "z": "zed"}, {"x": "two", "y": 1, "z": 1}])
        );
    }
}
