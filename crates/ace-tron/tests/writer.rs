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
    assert!(braced.starts_with("class Point: x, y, z\n\n{"), "{braced}");
    for text in [implicit, braced] {
        assert_eq!(
            read(&text),
            json!({"points": [{"x": 1, "y": 2, "z": null}, {"x": 1, "y": 2, "z": 3}, {"x": 3}], "class": 1})
        );
    }
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
