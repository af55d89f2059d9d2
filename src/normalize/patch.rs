//! Patches sent as text: their octets are what `git am` and `patch` apply.
//!
//! A patch is applied as its octets stand after the transfer coding is
//! undone (git's mailinfo re-codes the commit message and author, not the
//! diff): a Latin-1 patch written as UTF-8 puts UTF-8 into a Latin-1 file
//! or no longer applies, and a patch touching a Latin-1 file and a UTF-8
//! one is rightly both, which no single charset reads. So such a part is
//! kept byte for byte, as an attached file is (doc/normalize.md).

/// Whether a media subtype of text/* names a patch: `x-patch`, `x-diff`
/// and its variants (`x-diff-...`). `subtype` is lowercase, as parsed.
pub(super) fn is_patch_type(subtype: &str) -> bool {
    subtype == "x-patch" || subtype.starts_with("x-diff")
}

/// Whether an octet is one that converting the text would change in a line
/// that is otherwise ASCII: an 8-bit octet, or the escape and shifts of
/// the 7-bit ISO 2022 forms (ISO-2022-JP text is converted too).
fn changes(b: u8) -> bool {
    b >= 0x80 || matches!(b, 0x1b | 0x0e | 0x0f)
}

/// Whether `body` (a text after its transfer coding) holds a unified or
/// context diff with such an octet in one of its diff lines: a file header
/// (`--- `/`+++ `, `*** `/`--- `) or a line of a hunk (` `, `+`, `-` in a
/// unified hunk, counted by its `@@ -a,b +c,d @@` header; `  `, `! `,
/// `+ `, `- ` in a context hunk). Octets in the prose around the diff (a
/// commit message, a signature, a reply quoting it with `> `) do not
/// count: converting that text leaves the diff as it was.
pub(super) fn diff_lines_change(body: &[u8]) -> bool {
    // Most texts hold no diff at all (every diff has a `--- ` line).
    let diff = body.starts_with(b"--- ") || memchr::memmem::find(body, b"\n--- ").is_some();
    diff && marked_line_may_be_a_diff_line(body) && marked_diff_line(body)
}

/// The walk of [`diff_lines_change`]: whether a diff line of `body` (a file
/// header, a hunk's line) holds an octet the conversion changes.
fn marked_diff_line(body: &[u8]) -> bool {
    let lines: Vec<&[u8]> = body
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .collect();
    let marked = |l: &[u8]| l.iter().copied().any(changes);
    let mut i = 0;
    while i < lines.len() {
        let next = |k: usize| lines.get(i + k).copied().unwrap_or_default();
        if lines[i].starts_with(b"--- ")
            && next(1).starts_with(b"+++ ")
            && hunk_header(next(2)).is_some()
        {
            if marked(lines[i]) || marked(next(1)) {
                return true;
            }
            i += 2;
            while let Some((mut old, mut new)) = lines.get(i).and_then(|l| hunk_header(l)) {
                i += 1;
                while old > 0 || new > 0 {
                    let Some(&line) = lines.get(i) else { break };
                    match line.first() {
                        // An empty line is a context line whose space a
                        // mailer took off (git apply reads it so).
                        Some(b' ') | None if old > 0 && new > 0 => {
                            old -= 1;
                            new -= 1;
                        }
                        Some(b'-') if old > 0 => old -= 1,
                        Some(b'+') if new > 0 => new -= 1,
                        Some(b'\\') => {}
                        _ => break,
                    }
                    if marked(line) {
                        return true;
                    }
                    i += 1;
                }
                // "\ No newline at end of file" after the last line.
                if lines.get(i).is_some_and(|l| l.starts_with(b"\\ ")) {
                    i += 1;
                }
            }
            continue;
        }
        if lines[i].starts_with(b"*** ")
            && next(1).starts_with(b"--- ")
            && next(2).starts_with(b"***************")
        {
            if marked(lines[i]) || marked(next(1)) {
                return true;
            }
            i += 2;
            while lines
                .get(i)
                .is_some_and(|l| l.starts_with(b"***************"))
            {
                i += 1;
                while let Some(&line) = lines.get(i) {
                    if context_range(line) {
                        i += 1;
                        continue;
                    }
                    let body_line = matches!(line.get(..2), Some(b"  " | b"! " | b"+ " | b"- "))
                        || line.starts_with(b"\\ ");
                    if !body_line {
                        break;
                    }
                    if marked(line) {
                        return true;
                    }
                    i += 1;
                }
            }
            continue;
        }
        i += 1;
    }
    false
}

/// Whether a line of `body` that holds an octet the conversion changes
/// ([`changes`]) starts as a diff line can: ` `, `+`, `-` (a hunk's
/// lines, a file header `--- `/`+++ `), `!` and `*` (a context diff's),
/// `\` (`\ No newline at end of file`).
/// Nothing else can be marked in a diff: a patch whose 8-bit octets are
/// only in its prose (an author's name in `Signed-off-by:`, the commit
/// message) is let go without splitting it into lines and walking its
/// hunks, which a large patch took most of the time of.
fn marked_line_may_be_a_diff_line(body: &[u8]) -> bool {
    let mut at = 0;
    while let Some(k) = first_change(&body[at..]) {
        let p = at + k;
        let start = memchr::memrchr(b'\n', &body[..p]).map_or(0, |n| n + 1);
        if matches!(
            body.get(start),
            Some(b' ' | b'+' | b'-' | b'!' | b'*' | b'\\')
        ) {
            return true;
        }
        match memchr::memchr(b'\n', &body[p..]) {
            Some(n) => at = p + n + 1,
            None => return false,
        }
    }
    false
}

/// Where the first octet of `hay` the conversion changes ([`changes`]) is:
/// an 8-bit octet or ESC, SO, SI, each found a block at a time.
fn first_change(hay: &[u8]) -> Option<usize> {
    let high = crate::charset::find_nonascii(hay);
    let limit = high.unwrap_or(hay.len());
    memchr::memchr3(0x1b, 0x0e, 0x0f, &hay[..limit]).or(high)
}

/// The old and new line counts of a unified hunk header
/// `@@ -a[,b] +c[,d] @@` (a count left out is 1).
fn hunk_header(line: &[u8]) -> Option<(usize, usize)> {
    let rest = line.strip_prefix(b"@@ -")?;
    let (old, rest) = range(rest)?;
    let rest = rest.strip_prefix(b" +")?;
    let (new, rest) = range(rest)?;
    rest.starts_with(b" @@").then_some((old, new))
}

/// `a[,b]` at the start of `s`: the count b (1 when left out), and the rest.
fn range(s: &[u8]) -> Option<(usize, &[u8])> {
    let (_, rest) = number(s)?;
    match rest.strip_prefix(b",") {
        Some(r) => number(r),
        None => Some((1, rest)),
    }
}

/// Leading decimal digits of `s` as a number, and the rest.
fn number(s: &[u8]) -> Option<(usize, &[u8])> {
    let end = s
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(s.len());
    let n = std::str::from_utf8(&s[..end]).ok()?.parse().ok()?;
    Some((n, &s[end..]))
}

/// A context diff's range line: `*** a,b ****` or `--- c,d ----`.
fn context_range(line: &[u8]) -> bool {
    (line.starts_with(b"*** ") && line.ends_with(b" ****"))
        || (line.starts_with(b"--- ") && line.ends_with(b" ----"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The look at the lines with 8-bit octets before the walk lets go
    /// only of bodies the walk lets go of: for any mix of prose, unified
    /// and context diff lines, each with or without an 8-bit octet, when
    /// no line that holds one starts as a diff line can, the walk finds
    /// no marked diff line.
    #[test]
    fn the_look_before_the_walk_lets_go_only_of_what_the_walk_would() {
        use proptest::prelude::*;
        let line = prop::sample::select(vec![
            "--- a/f.c",
            "+++ b/f.c",
            "@@ -1,2 +1,2 @@",
            "@@ -1 +1 @@",
            " ctx",
            "+add",
            "-del",
            "*** a/f.c",
            "***************",
            "*** 1,2 ****",
            "--- 1,2 ----",
            "  c",
            "! x",
            "+ y",
            "- z",
            "\\ No newline at end of file",
            "Signed-off-by: J",
            "prose",
            "> quoted",
            "",
        ]);
        let lines = prop::collection::vec((line, any::<bool>()), 0..24);
        proptest!(|(lines in lines)| {
            let mut body = Vec::new();
            for (l, eight_bit) in &lines {
                body.extend_from_slice(l.as_bytes());
                if *eight_bit {
                    body.extend_from_slice("ü".as_bytes());
                }
                body.push(b'\n');
            }
            if !marked_line_may_be_a_diff_line(&body) {
                prop_assert!(!marked_diff_line(&body), "{:?}", String::from_utf8_lossy(&body));
            }
        });
        // The first octet that changes: 8-bit, or ESC, SO, SI, whichever
        // comes first.
        assert_eq!(first_change(b"ab\x1bc\xff"), Some(2));
        assert_eq!(first_change(b"ab\xffc\x0e"), Some(2));
        assert_eq!(first_change(b"abc\x0f"), Some(3));
        assert_eq!(first_change(&[b'a'; 40]), None);
        // And it does let go of a patch whose 8-bit text is its prose.
        let prose = "From: J\u{fc}rgen\n\nFix it.\nSigned-off-by: J\u{fc}rgen\n---\n\
                     --- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n";
        assert!(!marked_line_may_be_a_diff_line(prose.as_bytes()));
        assert!(marked_line_may_be_a_diff_line(
            "--- a\n+++ b\n@@ -1 +1 @@\n-a\n+\u{fc}\n".as_bytes()
        ));
    }

    #[test]
    fn hunk_headers() {
        assert_eq!(hunk_header(b"@@ -1,3 +1,4 @@"), Some((3, 4)));
        assert_eq!(hunk_header(b"@@ -0,0 +1 @@ fn x()"), Some((0, 1)));
        assert_eq!(hunk_header(b"@@ -7 +7,0 @@"), Some((1, 0)));
        assert_eq!(hunk_header(b"@@ -1,3 +1,4"), None);
        assert_eq!(hunk_header(b"@@@ -1,3 -1,3 +1,4 @@@"), None);
        assert_eq!(hunk_header(b"@@ -99999999999999999999999,1 +1 @@"), None);
    }

    const HEAD: &[u8] = b"Fix it.\n---\ndiff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n";

    fn with(head: &[u8], rest: &[u8]) -> Vec<u8> {
        [head, rest].concat()
    }

    #[test]
    fn unified_lines_count() {
        // In a removed, an added and a context line.
        for line in [&b"-J\xfcrgen\n"[..], b"+J\xfcrgen\n", b" J\xfcrgen\n"] {
            let body = with(HEAD, &[b"@@ -1,2 +1,2 @@\n x\n", line, b" y\n"].concat());
            assert!(diff_lines_change(&body), "{:?}", line);
        }
        // ISO-2022-JP in an added line.
        let body = with(HEAD, b"@@ -0,0 +1 @@\n+\x1b$B$3\x1b(B\n");
        assert!(diff_lines_change(&body));
        // A non-ASCII file name in the header.
        let body = b"--- a/M\xfcller.c\n+++ b/M\xfcller.c\n@@ -1 +1 @@\n-a\n+b\n";
        assert!(diff_lines_change(body));
        // CRLF lines, an empty context line, a second hunk.
        let body = with(
            b"--- a/a.c\r\n+++ b/a.c\r\n",
            b"@@ -1,2 +1,2 @@\r\n\r\n-a\r\n+b\r\n@@ -9 +9 @@\r\n-c\r\n+\xe9\r\n",
        );
        assert!(diff_lines_change(&body));
    }

    #[test]
    fn prose_around_a_diff_does_not_count() {
        // The commit message above, the signature and a reply below.
        let diff = b"@@ -1,2 +1,2 @@\n x\n-a\n+b\n";
        let body = [
            &b"Fix for J\xfcrgen.\n"[..],
            HEAD,
            diff,
            b"-- \nJ\xfcrgen M\xfcller\n",
        ]
        .concat();
        assert!(!diff_lines_change(&body));
        // After the hunk's counted lines: prose, though it starts with '-'.
        let body = [HEAD, diff, b"-J\xfcrgen\n"].concat();
        assert!(!diff_lines_change(&body));
        // A quoted diff (a reply) is the reply's text.
        let body = b"> --- a/a.c\n> +++ b/a.c\n> @@ -1 +1 @@\n> -a\n> +\xe9\n";
        assert!(!diff_lines_change(body));
        // `---` and `+++` without a hunk header: not a diff.
        let body = b"Hi\n--- a\n+++ b\n+\xe9\n";
        assert!(!diff_lines_change(body));
    }

    #[test]
    fn context_diffs() {
        let body = b"Hi\n*** a.c.orig\n--- a.c\n***************\n*** 1,2 ****\n  x\n! J\xfcrgen\n\
--- 1,2 ----\n  x\n! Jurgen\n";
        assert!(diff_lines_change(body));
        let body = b"Gr\xfc\xdfe\n*** a.c.orig\n--- a.c\n***************\n*** 1 ****\n! a\n\
--- 1 ----\n! b\n\nGr\xfc\xdfe\n";
        assert!(!diff_lines_change(body));
    }

    #[test]
    fn patch_types() {
        for t in ["x-patch", "x-diff", "x-diff-unified"] {
            assert!(is_patch_type(t), "{t}");
        }
        for t in ["plain", "x-patchwork", "diff", "x-c"] {
            assert!(!is_patch_type(t), "{t}");
        }
    }
}
