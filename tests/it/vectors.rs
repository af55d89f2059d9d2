//! The third-party vectors copied into fixtures/vectors are still the
//! corpus's files, byte for byte (fixtures/vectors/README.md says where
//! each comes from).

use crate::common;

#[test]
fn vendored_vectors_are_the_corpus_files() {
    let vendored = common::fixtures().join("vectors");
    let mut n = 0;
    for (ours, theirs) in [
        ("kuhn-utf8/UTF-8-test.txt", "kuhn-utf8/UTF-8-test.txt"),
        ("whatwg/encodings.json", "whatwg-encoding/encodings.json"),
        (
            "stalwart/unstructured.json",
            "stalwart-mail-parser/resources/unstructured.json",
        ),
        (
            "stalwart/content_type.json",
            "stalwart-mail-parser/resources/content_type.json",
        ),
        (
            "stalwart/address.json",
            "stalwart-mail-parser/resources/address.json",
        ),
    ] {
        let copy = std::fs::read(vendored.join(ours)).expect("vendored file");
        assert!(!copy.is_empty(), "{ours}");
        let Some(original) = common::corpus_bytes("vendored_vectors_are_the_corpus_files", theirs)
        else {
            return;
        };
        assert!(
            copy == original,
            "{ours} differs from the corpus's {theirs}"
        );
        n += 1;
    }
    assert_eq!(n, 5);
}
