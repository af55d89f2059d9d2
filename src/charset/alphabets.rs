//! The letters beyond ASCII that Latin-script languages write, for telling
//! two Latin readings of the same octets apart: windows-1252 against the
//! Turkish, Central European or Baltic charset chardetng guessed.
//!
//! Where those charsets differ from windows-1252 both readings are mostly
//! letters (Turkish `ş ı ğ` are windows-1252 `þ ý ð`, Romanian `ș ț ă`
//! are `º þ ã`, Hungarian `ő` is `õ`, Croatian `č ć đ` are `è æ ð`,
//! Lithuanian `ė ų` are `ë ø`), so "a symbol inside a word" does not show
//! the right one. What does is that one reading is a language's alphabet
//! and the other a mixture no language writes: `çalıştırılacak` is Turkish,
//! `çalýþtýrýlacak` has `ç` beside Icelandic `þ`.
//!
//! The table lists, per language, the lower-case letters beyond ASCII of
//! its alphabet and those its ordinary text uses (loanwords, ordinal
//! indicators `ª º`), as the languages' orthographies have them (the
//! exemplar characters of the Unicode CLDR, written out by hand). It holds
//! the languages whose text the Latin legacy charsets carry. A few letters
//! some languages write only before certain others ([`PLACES`]: Portuguese
//! `õ` before `e`) are held by those languages only there.

use super::evidence::{Alphabetic, find_nonascii};

/// Lower-case letters beyond ASCII, per language (upper case is folded
/// before the lookup; Turkish `İ` is listed as itself).
const ALPHABETS: &[(&str, &str)] = &[
    ("af", "áéèêëíîïóôöúûüý"),
    ("br", "âêîôûùüñ"),
    ("ca", "àçèéíïòóúüªº"),
    ("cs", "áčďéěíňóřšťúůýž"),
    ("cy", "âêîôûŵŷäëïöüáéíóúàèìòù"),
    ("da", "åæøéóôà"),
    ("de", "äöüßéàè"),
    ("eo", "ĉĝĥĵŝŭ"),
    ("es", "áéíñóúüªº"),
    ("et", "äöõüšž"),
    ("eu", "ñü"),
    ("fi", "äöåšž"),
    ("fo", "áðíóúýæø"),
    ("fr", "àâçéèêëîïôœùûüÿ"),
    ("fur", "àâçèêìîòôùû"),
    ("ga", "áéíóú"),
    ("gl", "áéíóúñüªº"),
    ("hr", "čćđšž"),
    ("hu", "áéíóöőúüű"),
    ("is", "áðéíóúýþæö"),
    ("it", "àèéìíîòóùúªº"),
    ("lt", "ąčęėįšųūž"),
    ("lv", "āčēģīķļņšūž"),
    ("mt", "ċġħżàèìòù"),
    ("nl", "áàâäéèêëíïóòôöúùûü"),
    ("no", "åæøéóòôâà"),
    ("oc", "àáçèéíïòóúü"),
    ("pl", "ąćęłńóśźż"),
    ("pt", "áâãàçéêíóôõúüªº"),
    ("ro", "ăâîșțşţ"),
    ("sk", "áäčďéíĺľňóôŕšťúýž"),
    ("sl", "čšžćđ"),
    ("sq", "çë"),
    ("sv", "åäöéü"),
    ("tr", "çğıİöşüâîû"),
    ("wa", "åâçèéêëîïôöûü"),
    ("az", "çəğıİöşü"),
    ("crh", "âçğıİîñöşüû"),
];

const _: () = assert!(
    ALPHABETS.len() < 64,
    "holders() keeps one bit per alphabet, and bit 63 free for ANYWHERE"
);

/// Letters some languages write only before certain others: Portuguese
/// `õ` only before `e` (`ações`, `põe`), `ã` only before `o e s i` or at a
/// word's end (`não`, `mãe`, `irmãs`, `cãibra`, `manhã`), and the ordinal
/// indicators `ª º` of Portuguese, Spanish, Galician, Catalan and Italian
/// after `n` or an abbreviation (`nº`, `nºs`, `Mª`), before no letter but
/// `s`, and after a number (or its period, `1.º`) before any (`1ºA`,
/// `2.ºB`, `2ºBach`, `1ªEd`); `º` also before a capital, as degrees typed
/// with the ordinal key (`25ºC`, `25 ºC`).
/// Elsewhere they are another language's letters read in the wrong
/// charset, which these alphabets do not hold there: Hungarian `ő` as
/// windows-1252 `õ` (`kezelõ`, `elõtér`), Romanian `ă ș` as `ã º`
/// (`rãdãcinã`, `fiºier`, `ºi`: a small `ş`, never after a digit nor
/// before a capital; Romanian capitals' `Ş` is `ª`). Estonian writes `õ`
/// anywhere (`või`).
/// The gettext catalogs of these languages write them so but for a typo
/// or two (`naõ`, `nºlin`).
const PLACES: &[Place] = &[
    Place::new('õ', &["pt"], "e", false, false, false),
    Place::new('ã', &["pt"], "oesi", true, false, false),
    Place::new('ª', &["ca", "es", "gl", "it", "pt"], "s", true, true, false),
    Place::new('º', &["ca", "es", "gl", "it", "pt"], "s", true, true, true),
];

/// A row of [`PLACES`].
struct Place {
    letter: char,
    /// The languages that write it only in its places.
    langs: &'static [&'static str],
    /// The letters it may come before.
    before: &'static str,
    /// Whether it may end a word.
    at_end: bool,
    /// Whether it may come before anything after a number (or its period).
    after_number: bool,
    /// Whether it may come before a capital.
    before_capital: bool,
}

impl Place {
    const fn new(
        letter: char,
        langs: &'static [&'static str],
        before: &'static str,
        at_end: bool,
        after_number: bool,
        before_capital: bool,
    ) -> Place {
        Place {
            letter,
            langs,
            before,
            at_end,
            after_number,
            before_capital,
        }
    }
}

/// The letters beyond ASCII of a text, case folded: each different letter
/// and how often it occurs (a text has a few dozen different ones at
/// most), and their number.
pub(super) struct Letters {
    /// Each letter with the alphabets that hold it where it stands
    /// ([`holders_at`]), and how often it stands so.
    counts: Vec<(char, u64, usize)>,
    total: usize,
}

impl Letters {
    /// The letters of `text`, its ASCII passed over a block at a time.
    pub(super) fn of(text: &str) -> Letters {
        let mut letters = Letters {
            counts: Vec::new(),
            total: 0,
        };
        let bytes = text.as_bytes();
        let mut at = 0;
        while let Some(i) = find_nonascii(&bytes[at..]) {
            let i = at + i;
            let rest = &text[i..];
            let end = rest
                .char_indices()
                .find(|&(_, c)| c.is_ascii())
                .map_or(rest.len(), |(k, _)| k);
            // The ASCII character that ends the run comes after its last,
            // the one before it before its first.
            let after = rest[end..].chars().next();
            let mut prev = text[..i].chars().next_back();
            let mut run = rest[..end].chars();
            while let Some(c) = run.next() {
                let before = prev.replace(c);
                if !c.alphabetic() {
                    continue;
                }
                let c = fold(c);
                // Most letters are held wherever they stand: their
                // alphabets are looked up once per letter, in `best`
                // ([`ANYWHERE`]); only the letters of [`PLACES`] per place.
                let mask = if PLACES.iter().any(|p| p.letter == c) {
                    holders_at(c, before, run.clone().next().or(after))
                } else {
                    ANYWHERE
                };
                letters.total += 1;
                match letters
                    .counts
                    .iter_mut()
                    .find(|(d, m, _)| *d == c && *m == mask)
                {
                    Some(e) => e.2 += 1,
                    None => letters.counts.push((c, mask, 1)),
                }
            }
            at = i + end;
        }
        letters
    }

    /// The alphabet holding most of the letters, and how many it holds
    /// (of several, the last in [`ALPHABETS`]).
    pub(super) fn best(&self) -> (Alphabet, usize) {
        let mut held = [0usize; ALPHABETS.len()];
        for &(c, mask, n) in &self.counts {
            let mut mask = if mask == ANYWHERE { holders(c) } else { mask };
            while mask != 0 {
                held[mask.trailing_zeros() as usize] += n;
                mask &= mask - 1;
            }
        }
        held.into_iter()
            .enumerate()
            .map(|(i, held)| (Alphabet(i), held))
            .max_by_key(|&(_, held)| held)
            .unwrap_or((Alphabet(0), 0))
    }

    /// The alphabet holding most of the letters wherever they stand
    /// (without [`PLACES`]; of several, the last in [`ALPHABETS`]).
    pub(super) fn best_anywhere(&self) -> Alphabet {
        let mut held = [0usize; ALPHABETS.len()];
        for &(c, _, n) in &self.counts {
            let mut mask = holders(c);
            while mask != 0 {
                held[mask.trailing_zeros() as usize] += n;
                mask &= mask - 1;
            }
        }
        held.into_iter()
            .enumerate()
            .max_by_key(|&(_, held)| held)
            .map_or(Alphabet(0), |(i, _)| Alphabet(i))
    }

    /// How many letters there are.
    pub(super) fn total(&self) -> usize {
        self.total
    }
}

/// One language's alphabet of [`ALPHABETS`] (its index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Alphabet(usize);

impl Alphabet {
    /// Whether the alphabet holds the letter `c` after `prev` and before
    /// `next` (the characters around it, `None` at the text's start or
    /// end): [`holders_at`].
    pub(super) fn holds_at(self, c: char, prev: Option<char>, next: Option<char>) -> bool {
        holders_at(fold(c), prev, next) & (1 << self.0) != 0
    }

    /// Whether the alphabet holds the letter `c` somewhere.
    pub(super) fn holds(self, c: char) -> bool {
        holders(fold(c)) & (1 << self.0) != 0
    }
}

/// In [`Letters`], a letter held by the alphabets of [`holders`] wherever
/// it stands (no alphabet has bit 63).
const ANYWHERE: u64 = u64::MAX;

/// Which alphabets hold the (folded) letter `c` after `prev` and before
/// `next`: those of [`holders`] but the languages that write it only
/// elsewhere ([`PLACES`]).
fn holders_at(c: char, prev: Option<char>, next: Option<char>) -> u64 {
    let mask = holders(c);
    if c.is_ascii() || mask == 0 {
        return mask;
    }
    let mut out = mask;
    for place in PLACES {
        if place.letter != c {
            continue;
        }
        let fine = (place.after_number && prev.is_some_and(|p| p.is_ascii_digit() || p == '.'))
            || match next.filter(|n| n.alphabetic()) {
                None => place.at_end,
                Some(n) => {
                    place.before.contains(fold(n)) || (place.before_capital && n.is_uppercase())
                }
            };
        if !fine {
            for (i, (lang, _)) in ALPHABETS.iter().enumerate() {
                if place.langs.contains(lang) {
                    out &= !(1 << i);
                }
            }
        }
    }
    out
}

/// Which alphabets hold the (folded) letter `c`: bit `i` for
/// `ALPHABETS[i]`. The letters and their alphabets are listed once, sorted.
fn holders(c: char) -> u64 {
    static TABLE: std::sync::OnceLock<Vec<(char, u64)>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t: Vec<(char, u64)> = Vec::new();
        for (i, (_, abc)) in ALPHABETS.iter().enumerate() {
            for c in abc.chars() {
                match t.iter_mut().find(|(d, _)| *d == c) {
                    Some(e) => e.1 |= 1 << i,
                    None => t.push((c, 1 << i)),
                }
            }
        }
        t.sort_unstable();
        t
    });
    table
        .binary_search_by_key(&c, |&(d, _)| d)
        .map_or(0, |k| table[k].1)
}

/// How well the best-fitting language's alphabet holds the letters beyond
/// ASCII of `text`: the number of such letters it holds, and their number.
/// `(0, 0)` when the text has none.
pub(super) fn alphabet_fit(text: &str) -> (usize, usize) {
    let letters = Letters::of(text);
    (letters.best().1, letters.total)
}

/// The alphabet of the language that holds most of the letters beyond
/// ASCII of `text` (`ý þ ð` of Turkish read as windows-1252: Icelandic's).
#[cfg(test)]
fn best_alphabet(text: &str) -> Alphabet {
    Letters::of(text).best().0
}

/// Lower case for one character (Turkish `İ` stays itself: its lower case
/// is two characters, `i` and a combining dot).
fn fold(c: char) -> char {
    if c == 'İ' {
        return c;
    }
    let mut l = c.to_lowercase();
    match (l.next(), l.next()) {
        (Some(one), None) => one,
        _ => c,
    }
}

/// How the reading `a` fits a language's alphabet against `b`: by the
/// share of its letters beyond ASCII that its best-fitting alphabet holds.
/// `Equal` when the shares are equal (Catalan `ï` is Czech `ď`, both
/// alphabets); `None` when either reading has no letter beyond ASCII
/// (`«%s»` is not ISO-8859-2 `Ť%sť`: symbols against letters is the
/// question of a symbol inside a word, not of alphabets).
pub(super) fn compare_fit(a: &str, b: &str) -> Option<std::cmp::Ordering> {
    let (ha, ta) = alphabet_fit(a);
    let (hb, tb) = alphabet_fit(b);
    // ha/ta against hb/tb, in integers.
    (ta > 0 && tb > 0).then(|| (ha * tb).cmp(&(hb * ta)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_language_fits_its_own_letters_and_not_a_mixture() {
        assert_eq!(alphabet_fit("çalıştırılacak"), (5, 5));
        assert_eq!(alphabet_fit("BETİK"), (1, 1));
        // ç is no Icelandic letter and þ ý no Turkish one.
        let (h, t) = alphabet_fit("çalýþtýrýlacak");
        assert!(h < t, "{h}/{t}");
        use std::cmp::Ordering::{Equal, Greater, Less};
        assert_eq!(
            compare_fit("çalıştırılacak", "çalýþtýrýlacak"),
            Some(Greater)
        );
        assert_eq!(compare_fit("çalýþtýrýlacak", "çalıştırılacak"), Some(Less));
        // Catalan ï is Czech ď: both alphabets, no reading better.
        assert_eq!(compare_fit("produït", "produďt"), Some(Equal));
        assert_eq!(alphabet_fit("plain ASCII, 25 °C ± 2"), (0, 0));
        assert_eq!(compare_fit("Ť%sť", "«%s»"), None);
    }

    #[test]
    fn the_best_alphabet_is_the_one_holding_most_letters() {
        // Turkish read as windows-1252 is mostly Icelandic letters, but
        // for `ç`.
        let abc = best_alphabet("çalýþtýrýlacak");
        assert!(abc.holds('þ') && abc.holds('Ý') && !abc.holds('ç'));
        let abc = best_alphabet("Köszönöm, elérhető");
        assert!(abc.holds('ő') && abc.holds('Ő') && !abc.holds('õ'));
        assert!(best_alphabet("İSTANBUL").holds('İ'));
    }

    #[test]
    fn a_letter_out_of_its_place_is_no_letter_of_that_language() {
        // Portuguese writes `õ` before `e`, `ã` before `o e s i` or at a
        // word's end, and `º` before no letter but `s`, or after a number.
        for pt in [
            "operações põem",
            "não mãe irmãs manhã cãibra",
            "nº 5, 1º, nºs",
            "AÇÕES NÃO",
            // after a number, before any letter: groups, floors, degrees
            "1ºA 2ºBach 1ºDto 1ªEd 25ºC",
            "1.ºA 2.ªEd 25 ºC",
            // `ª` at a word's end (an abbreviation, the pt_BR catalog of
            // tar); after a number, before a small letter too.
            "Mª José",
            "a NUMEROª ocorrência",
            "2ºbach 3ºpiso 1ªed",
        ] {
            let (held, total) = alphabet_fit(pt);
            assert_eq!(held, total, "{pt}");
        }
        // Hungarian `ő` and Romanian `ă ș` read as windows-1252.
        for odd in [
            "által kezelõ",
            "elõtér",
            "rãdãcinã",
            "fiºier",
            "ºi",
            "CONSTRÂNGERE ºi",
            "a ºi b",
            "ªI",
            "ªtefan",
        ] {
            let (held, total) = alphabet_fit(odd);
            assert!(held < total, "{odd}: {held}/{total}");
        }
        // Estonian writes `õ` anywhere.
        assert_eq!(alphabet_fit("või õhtu sõnum"), (3, 3));
        // Each place is judged where the letter stands: `õ` before `e`
        // here, before `r` there.
        let (held, total) = alphabet_fit("ações põe ellenõrizze");
        assert_eq!((held, total), (3, 4));
    }

    #[test]
    fn upper_case_is_folded() {
        assert_eq!(alphabet_fit("ŁÓDŹ"), (3, 3));
        assert_eq!(alphabet_fit("ÞÓRÐUR"), (3, 3));
    }
}
