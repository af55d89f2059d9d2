//! Latin-script text whose label does not name its charset (no label,
//! `us-ascii`, or a `utf-8` lie) must be read as written: Turkish, Central
//! European and Baltic text is not turned into windows-1252 look-alikes
//! (`Ayþe`, `velièine`, `B³±d`, `Aèiû`), and Western text is not turned into
//! Turkish, Central European or Baltic look-alikes (`één` as ISO-8859-4,
//! `£40` as `Ł40`). doc/charset-decision.md ("Latin script") has the rule;
//! `tools/hunt_latin_guess.py` measures it on the gettext catalogs.
//!
//! The sentences are everyday mail and software messages, written for
//! these tests; encoding_rs writes them in each charset, and the oracle is
//! the text itself: what the normalizer writes back, decoded, must be it.

use encoding_rs::Encoding;
use mailcharset::charset::{self, DecodeOptions, Tld};
use mailcharset::message::Message;
use mailcharset::normalize::{self, Options};
use proptest::prelude::*;

/// (language, its legacy charsets, its top-level domain, sentences).
type Language = (
    &'static str,
    &'static [&'static str],
    &'static str,
    &'static [&'static str],
);

/// Languages whose letters windows-1252 reads as other letters.
const OTHERS: &[Language] = &[
    (
        "tr",
        &["windows-1254", "iso-8859-9"],
        "tr",
        &[
            "Merhaba Ayşe, hızlı cevabın için teşekkürler.",
            "Yarın saat üçte toplantı odasında görüşelim; lütfen raporu getir.",
            "Dosya sıkıştırılmış, ancak bu kurulum sıkıştırmayı desteklemiyor.",
            "Şifrenizi değiştirmek için aşağıdaki bağlantıya tıklayın.",
        ],
    ),
    (
        "hr",
        &["windows-1250", "iso-8859-2"],
        "hr",
        &[
            "Nije moguće čitati datoteku; provjerite dozvole.",
            "Veličine početnog i zaključnog dijela bloka su različite.",
            "Hvala na brzom odgovoru, vidimo se u četvrtak.",
            "Molim vas da mi pošaljete račun do petka.",
        ],
    ),
    (
        "pl",
        &["iso-8859-2", "windows-1250"],
        "pl",
        &[
            "Błąd wewnętrzny: nie udało się odnaleźć składnika.",
            "Dziękuję za szybką odpowiedź, do zobaczenia w środę.",
            "Nie można zablokować pliku, spróbuj ponownie później.",
            "Proszę przesłać fakturę do piątku.",
        ],
    ),
    (
        "hu",
        &["iso-8859-2", "windows-1250"],
        "hu",
        &[
            "Köszönöm a gyors választ, csütörtökön találkozunk.",
            "Minden elérhető hitelesítési mechanizmus kimerítve.",
            "A fájl nem írható, ellenőrizze a jogosultságokat.",
            "Kérem, küldje el a számlát péntekig.",
        ],
    ),
    (
        "cs",
        &["windows-1250", "iso-8859-2"],
        "cz",
        &[
            "Děkuji za rychlou odpověď, uvidíme se ve čtvrtek.",
            "Soubor nelze otevřít, zkontrolujte přístupová práva.",
            "Prosím pošlete mi fakturu do pátku.",
        ],
    ),
    (
        "ro",
        &["windows-1250", "iso-8859-2"],
        "ro",
        &[
            "Mulţumesc pentru răspunsul rapid; ne vedem marţi la Braşov.",
            "Fişierul nu a putut fi găsit în directorul specificat.",
            "Vă rog să-mi trimiteţi factura până vineri.",
        ],
    ),
    (
        "lt",
        &["windows-1257", "iso-8859-13"],
        "lt",
        &[
            "Ačiū už greitą atsakymą, susitiksime ketvirtadienį.",
            "Nepavyko įdiegti paketų, nes trūksta priklausomybių.",
            "Prašau atsiųsti sąskaitą iki penktadienio.",
        ],
    ),
    (
        "lv",
        &["windows-1257", "iso-8859-13"],
        "lv",
        &[
            "Paldies par ātro atbildi, tiksimies ceturtdien.",
            "Neizdevās atvērt failu; pārbaudiet piekļuves tiesības.",
            "Lūdzu, nosūtiet rēķinu līdz piektdienai.",
        ],
    ),
];

/// Western languages: windows-1252 is their charset.
const WESTERN: &[Language] = &[
    (
        "fr",
        &["windows-1252"],
        "fr",
        &[
            "Merci pour ta réponse rapide, à jeudi prochain.",
            "Le fichier n'a pas pu être créé : vérifiez les droits d'accès.",
            "Ça coûte 25 € ; la réunion est déplacée à mercredi.",
        ],
    ),
    (
        "de",
        &["windows-1252"],
        "de",
        &[
            "Vielen Dank für die schnelle Antwort, bis Donnerstag.",
            "Die Datei konnte nicht geöffnet werden; bitte prüfen Sie die Größe.",
            "Grüße aus München.",
        ],
    ),
    (
        "es",
        &["windows-1252"],
        "es",
        &[
            "Gracias por la respuesta rápida; nos vemos el miércoles.",
            "No se pudo crear el archivo, señor Muñoz.",
            "¿Vienes mañana? 2ª edición, nº 5.",
        ],
    ),
    (
        "pt",
        &["windows-1252"],
        "pt",
        &[
            "Obrigado pela resposta rápida, até quinta-feira.",
            "Não foi possível abrir o ficheiro; verifique as permissões.",
        ],
    ),
    (
        "nl",
        &["windows-1252"],
        "nl",
        &[
            "Bedankt voor het snelle antwoord, tot donderdag; één ogenblik.",
            "Het bestand kon niet worden geopend, controleer de rechten.",
            "Wij hebben de ideeën van de coöperatie besproken.",
        ],
    ),
    (
        "da",
        &["windows-1252"],
        "dk",
        &[
            "Tak for det hurtige svar, vi ses på torsdag.",
            "Filen kunne ikke åbnes; kontrollér adgangsrettighederne.",
            "Hilsen fra Ærø og Ødegård.",
        ],
    ),
    (
        "is",
        &["windows-1252"],
        "is",
        &[
            "Takk fyrir skjótt svar, sjáumst á fimmtudaginn.",
            "Ekki tókst að opna skrána; athugaðu aðgangsheimildir þínar.",
            "Kveðja, Þórður.",
        ],
    ),
    (
        "ca",
        &["windows-1252"],
        "es",
        &[
            "Gràcies per la resposta ràpida, ens veiem dijous.",
            "S'ha produït un error de protocol: s'esperava «%s».",
        ],
    ),
    (
        "ga",
        &["windows-1252"],
        "ie",
        &[
            "Go raibh maith agat as an bhfreagra tapa, feicfidh mé Déardaoin thú.",
            "Níl an comhad ar fáil; seiceáil na ceadanna, a Åsa.",
        ],
    ),
    (
        "it",
        &["windows-1252"],
        "it",
        &[
            "Grazie per la risposta veloce, ci vediamo giovedì.",
            "Non è stato possibile aprire il file; controlla i permessi.",
        ],
    ),
    (
        "en",
        &["windows-1252"],
        "uk",
        &[
            "Thanks for the quick reply — I’ll send the invoice on Monday.",
            "Price is £40 per seat, or €45 if paid after the 3rd.",
            "Bring the “Q3 figures” if you can.",
        ],
    ),
];

/// Top-level domains a sender writes from besides the language's own:
/// generic, and foreign ones whose hint leads chardetng elsewhere (to
/// another script, or to the Central European, Turkish and Baltic
/// charsets, where the alphabet rule trusts the guess more).
const FOREIGN: &[&str] = &[
    "com", "ru", "jp", "cn", "il", "gr", "bg", "cz", "hu", "tr", "lt",
];

/// A one-part message: `body` (ending in a line end) under `ct`, 8bit,
/// from a sender of `tld`.
fn message(tld: &str, ct: &str, body: &[u8]) -> Vec<u8> {
    [
        format!(
            "From: Someone <a@mail.example.{tld}>\nTo: b@example.net\nSubject: test\n\
             Message-ID: <x@mail.example.{tld}>\nMIME-Version: 1.0\nContent-Type: {ct}\n\
             Content-Transfer-Encoding: 8bit\n\n"
        )
        .into_bytes(),
        body.to_vec(),
    ]
    .concat()
}

/// What the normalizer writes for the body, decoded.
fn normalized_body(msg: &[u8]) -> String {
    let out = normalize::normalize(msg, &Options::default()).expect("normalize");
    let m = Message::parse(&out.bytes);
    String::from_utf8(m.root.decoded_body(&m).0.into_owned()).expect("UTF-8 out")
}

fn encoding(label: &str) -> &'static Encoding {
    Encoding::for_label(label.as_bytes()).expect("a known label")
}

const CONTENT_TYPES: [&str; 3] = [
    "text/plain",
    "text/plain; charset=us-ascii",
    "text/plain; charset=utf-8",
];

/// What the text must come back as: itself, but under a `utf-8` label
/// with fewer than four octets beyond ASCII the label's reading (too
/// little evidence against the label: U+FFFD at each).
fn expected(text: &str, bytes: &[u8], ct: &str) -> String {
    if ct.ends_with("utf-8") && bytes.iter().filter(|b| !b.is_ascii()).count() < 4 {
        String::from_utf8_lossy(bytes).into_owned()
    } else {
        text.to_string()
    }
}

/// Latvian whose windows-1252 reading is French letters (`ā ē ļ ī ū` are
/// `â ç ï î û`): only `ķ` as `í` tells, one letter, too little for the
/// alphabets; chardetng knows it from its own or a generic domain, not
/// from a Russian or Japanese one.
fn known_miss(lang: &str, tld: &str) -> bool {
    lang == "lv" && matches!(tld, "ru" | "jp" | "cn" | "il" | "gr" | "bg")
}

/// Every language's sentences together (two to four of them), in each of
/// its charsets, under each content type, from its own domain, a generic
/// and a foreign one: read as written, but for the known misses, which
/// must still miss (a fix shows here, to be moved into the rule's
/// figures).
#[test]
fn latin_text_without_its_label_is_read_as_written() {
    let mut wrong = Vec::new();
    let mut missed = 0;
    for &(lang, charsets, own, sentences) in OTHERS.iter().chain(WESTERN) {
        let text = sentences.join("\n") + "\n";
        for cs in charsets {
            let bytes = encoding_rs_encode(&text, encoding(cs));
            for ct in CONTENT_TYPES {
                for tld in [own, "com", "ru", "jp"] {
                    let got = normalized_body(&message(tld, ct, &bytes));
                    let want = expected(&text, &bytes, ct);
                    if known_miss(lang, tld) {
                        assert_ne!(
                            got, want,
                            "{lang} from .{tld} is read now: a known miss no more"
                        );
                        missed += 1;
                    } else if got != want {
                        wrong.push(format!("{lang} {cs} under {ct:?} from .{tld}: {got:?}"));
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} not read as written:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert_eq!(missed, 12);
}

fn encoding_rs_encode(text: &str, enc: &'static Encoding) -> Vec<u8> {
    let (b, _, unmappable) = enc.encode(text);
    assert!(!unmappable, "{} cannot write {text:?}", enc.name());
    b.into_owned()
}

/// One sentence of a Western language alone, from any domain, is never
/// read as another Latin charset: where chardetng guesses one (Dutch
/// `één` as ISO-8859-4, `£40` as windows-1250 `Ł40`), windows-1252 reads
/// an alphabet as well as it does.
#[test]
fn a_western_sentence_is_never_read_as_another_latin_charset() {
    let mut wrong = Vec::new();
    for &(lang, _, own, sentences) in WESTERN {
        for s in sentences {
            let text = format!("{s}\n");
            let bytes = encoding_rs_encode(&text, encoding_rs::WINDOWS_1252);
            for tld in std::iter::once(own).chain(FOREIGN.iter().copied()) {
                let opts = DecodeOptions {
                    tld: Tld::from_domain(format!("example.{tld}").as_bytes()),
                    body: true,
                    ..DecodeOptions::default()
                };
                let d = charset::decode(&bytes, None, &opts);
                let latin = d.detected.is_some_and(|g| {
                    matches!(
                        g.charset.decoder_name(),
                        Some(
                            "windows-1250"
                                | "ISO-8859-2"
                                | "windows-1254"
                                | "windows-1257"
                                | "ISO-8859-13"
                                | "ISO-8859-4"
                        )
                    )
                });
                if latin && d.text != text {
                    wrong.push(format!("{lang} from .{tld}: {:?} {:?}", d.detected, d.text));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Body options with the sender's top-level domain `tld`.
fn body_opts(tld: &str) -> DecodeOptions {
    DecodeOptions {
        tld: Tld::from_domain(format!("example.{tld}").as_bytes()),
        body: true,
        ..DecodeOptions::default()
    }
}

/// `text` written in `cs`, decoded as a body under `label` from a `.tld`
/// sender: the text read and the charset detected, if any.
fn read_from(
    text: &str,
    cs: &str,
    label: Option<&str>,
    tld: &str,
) -> (String, Option<&'static str>) {
    let bytes = encoding_rs_encode(text, encoding(cs));
    let d = charset::decode(&bytes, label.map(str::as_bytes), &body_opts(tld));
    (d.text.into_owned(), d.detected.map(|g| g.charset.name()))
}

/// The cases the rule was made for, one by one, through the library: a
/// Turkish Subject in a `utf-8` encoded-word lie, Polish symbols inside
/// words from a Bulgarian domain, Crimean Tatar from a Ukrainian one (read
/// as windows-1251 before: `dцgmesiniс`), and two that must stay: English
/// `£40` and `I’ll` under `us-ascii` (ISO-8859-2 would make `Ł40`), a
/// GB2312 text no Latin charset reads better (no charset named for
/// nothing), Catalan guillemets from a Czech sender (not ISO-8859-2
/// `Ť ť`: no letter in windows-1252's reading to weigh against).
#[test]
fn regression_latin_guesses() {
    let read = read_from;
    let tr = "Merhaba Ayşe, hızlı cevabın için teşekkürler.";
    assert_eq!(read(tr, "windows-1254", Some("utf-8"), "com").0, tr);
    assert_eq!(read(tr, "iso-8859-9", None, "com").0, tr);
    let pl = "Błąd wewnętrzny, nie udało się odnaleźć składnika.";
    assert_eq!(read(pl, "iso-8859-2", None, "bg").0, pl);
    let crh = "Aylanma döğmesiniñ etrafındaki şev uslübı";
    assert_eq!(read(crh, "windows-1254", Some("utf-8"), "ua").0, crh);
    let en = "Thanks \u{2014} I\u{2019}ll pay \u{a3}40 or \u{20ac}45.";
    let (text, det) = read(en, "windows-1252", Some("us-ascii"), "com");
    assert_eq!(text, en);
    assert_eq!(det, Some("windows-1252"));
    // Guillemets from a Czech sender: ISO-8859-2 reads letters (`Ť ť`)
    // where windows-1252 reads no letter at all; no alphabet to compare.
    let ca = "Afichar \u{ab} Se connectar al servidor \u{bb} i \u{ab}fitxer\u{bb}";
    for tld in ["cz", "hu", "pl"] {
        assert_eq!(read(ca, "windows-1252", None, tld).0, ca, "from .{tld}");
    }
    // One word outside any one alphabet in windows-1252's reading (`ì ï`
    // are Welsh, `ý` is not): thin evidence, so windows-1250 only from a
    // Czech sender; the Nynorsk `lèt` from a `.bg` sender is not reason
    // enough to read `regulært` as Lithuanian `regulęrt`.
    let cs = "Dobrý den, děkuji za rychlou odpověď.";
    assert_eq!(read(cs, "windows-1250", Some("utf-8"), "cz").0, cs);
    assert_eq!(read(cs, "windows-1250", None, "cz").0, cs);
    assert_eq!(
        read(cs, "windows-1250", None, "com").1,
        Some("windows-1252"),
        "from .com the evidence stays too thin"
    );
    let nn = "regulært uttrykk men lèt seg ikkje installera to markørar i høgre-tekst";
    for tld in ["bg", "cz", "lt", "com"] {
        assert_eq!(read(nn, "windows-1252", None, tld).0, nn, "from .{tld}");
    }
    // Nor Croatian `moguæe èitati` (one foreign word) a reason for
    // Lithuanian `moguęe čitati` from a `.lt` sender: the Baltic charsets
    // read too many Western letters as Lithuanian ones.
    let hr = "Nije moguće čitati datoteku; provjerite dozvole.";
    assert_ne!(read(hr, "windows-1250", None, "lt").1, Some("windows-1257"));
    assert_eq!(read(hr, "windows-1250", None, "hr").0, hr);
    // Under a Latin label that lies about which Latin charset: the label's
    // reading is no one language's in three words or more (`Joăo`
    // `informaçăo` `tręs`: Romanian, Hungarian and Polish letters), and
    // another charset's mends them.
    let labelled = |text: &str, cs: &str, label: &str| read(text, cs, Some(label), "com");
    let pt = "Olá João, obrigado pela informação sobre a reunião. As ações caíram três por cento. Você já recebeu?";
    assert_eq!(
        labelled(pt, "iso-8859-1", "iso-8859-2"),
        (pt.to_string(), Some("windows-1252"))
    );
    let hu =
        "A hőmérséklet túl magas, a tűz közel van; kérjük, hívja a szolgálatot és győződjön meg.";
    assert_eq!(labelled(hu, "iso-8859-2", "iso-8859-1").0, hu);
    // Correct labels whose text holds names of other languages keep them.
    let lv = "Kļūda, saņemot informāciju datnes deskriptoram\nTurp ritinātājs\nWinHelp palīdzības datne\nMüller-Lüdenscheidt\nÉcole\nČapek";
    assert_eq!(
        labelled(lv, "windows-1257", "windows-1257"),
        (lv.to_string(), None)
    );
    let names = "Čapek\né\nMüller-Lüdenscheidt\né\nMülčler-Lüdenschůidt\n";
    assert_eq!(
        labelled(names, "windows-1250", "windows-1250"),
        (names.to_string(), None)
    );
    // ... also when no alphabet holds three in four of its few letters.
    let lv2 = "Kļūda, saņemot informāciju datnes deskriptoram — %s\nü\nTurp ritinātājs\nBotsvana\nlapas cilne\nWinHelp palīdzības datne\nMüller-Lüdenscheidt\nČapek\nÉ\n";
    assert_eq!(
        labelled(lv2, "windows-1257", "windows-1257"),
        (lv2.to_string(), None)
    );
    // Czech windows-1250 under ISO-8859-1 fits Welsh best (`kùò úpìl
    // ïábelské`: Welsh letters), so few of its words are foreign to it;
    // no alphabet holds three in four of its letters, and windows-1250
    // reads every word as Czech.
    let cz = "Příliš žluťoučký kůň úpěl ďábelské ódy.\nDobrý den, děkuji za rychlou odpověď.\nSchůzka bude ve čtvrtek v Brně, v zasedací místnosti.\nS pozdravem, Jiří Šťastný\n";
    let cz3 = cz.repeat(2);
    assert_eq!(
        labelled(&cz3, "windows-1250", "iso-8859-1"),
        (cz3.clone(), Some("windows-1250"))
    );
    // Symbols inside words of a correct Latin-1 text (`Ma¿ana`, `p¼q`,
    // `ab¹cd`) are no reason for ISO-8859-4 (`Maŋana`), whose reading of
    // the text's letters is no one language's (`seletôr ... tierį ...
    // agjīs`): it fits an alphabet worse than the label's.
    let fur = "Ma¿ana\np¼q\nab¹cd\nIl seletôr dal tierç nivel al agjìs come un bloc cuant che si sposte il file.\n";
    assert_eq!(
        labelled(fur, "iso-8859-1", "iso-8859-1"),
        (fur.to_string(), None)
    );
    // GB2312 full-width signs, which windows-1252 and windows-1254 read
    // alike: windows-1252 is named, not a look-alike.
    let gb = b"WROTE\xa3\xba=====\n> \xa1\xa1\xa1\xa1Guangxing Zhang\n";
    let d = charset::decode(gb, None, &body_opts("com"));
    assert_ne!(
        d.detected.map(|g| g.charset.name()),
        Some("windows-1254"),
        "{:?}",
        d.text
    );
}

/// Mac OS Roman text sent without its label (or under a `utf-8` lie),
/// as classic Mac mailers did: windows-1252 reads its lowercase accented
/// letters as `š Ÿ Š Ž` and its `ß` as `§` (`Schšne GrŸ§e aus Kšln`), no
/// one language's words, and chardetng never names macintosh. It is now
/// one of the charsets tried when windows-1252's reading is no one
/// language's. It must not take text whose Latin-1 small letters it reads
/// as capitals (Breton `pellgargañ` as `pellgargaÒ`) or as symbols inside
/// a word (a Czech name in a Romanian ISO-8859-16 text, `úžší` as `˙∏®Ì`).
#[test]
fn regression_macintosh_text_is_read_as_macintosh() {
    let read = read_from;
    let de = "Schöne Grüße aus Köln! Wir freuen uns über Ihre Anfrage und schicken Ihnen gern die Unterlagen für nächste Woche.";
    let fr = "Bonjour à tous, voici le «rapport» de l’été… Merci d’avance, à bientôt. Ça a été très agréable.";
    for text in [de, fr] {
        for label in [None, Some("us-ascii"), Some("utf-8")] {
            for tld in ["com", "de", "fr"] {
                assert_eq!(
                    read(text, "macintosh", label, tld),
                    (text.to_string(), Some("macintosh")),
                    "{label:?} from .{tld}"
                );
            }
        }
    }
    // The same texts in windows-1252 stay windows-1252.
    for text in [de, fr] {
        assert_eq!(read(text, "windows-1252", None, "com").0, text);
    }
    let br = "O tegas ar munudoù\npellgargañ\nraktresoù\nDesteudañ a-blaen\nDeomp dezhi gant ar cheñchamantoù ?\nSão Tomé ha Príncipe\nSahara ar C'hornôg\n";
    for label in [None, Some("us-ascii")] {
        assert_ne!(read(br, "windows-1252", label, "fr").1, Some("macintosh"));
    }
    let ro =
        "Kurdă (Turcia, F) Belgiană (alternativă, doar Latin-9) setează toate mesajele\núžší\n";
    assert_eq!(
        read(ro, "iso-8859-16", Some("iso-8859-16"), "com"),
        (ro.to_string(), None)
    );
}

/// Every Western language's sentences together, written on a Mac (Mac
/// OS Roman), without a label, under `us-ascii` or a `utf-8` lie, from the
/// language's own or a generic domain: read as written (English by its
/// typography alone, `I’ll`, `“Q3 figures”`, which windows-1252 reads as
/// `IÕll`, `ÒQ3 figuresÓ`), but for the known
/// misses, which are read as windows-1252 and never as a third charset.
/// The misses: Dutch, whose windows-1252 reading fits Czech (`ŽŽn`,
/// `cošperatie`); Danish, whose Mac letters at a word's edge read as
/// symbols, which a word sheds (`®r¿`: one foreign word, too little);
/// Italian,
/// two characters; Irish, whose Mac `Ú` is 0x81, which windows-1252 has
/// no character for (a sign that the domain misled chardetng: its guess
/// without the domain is taken, windows-1252 again).
#[test]
fn western_mac_text_without_its_label_is_read_as_written() {
    let known_miss = |lang: &str| matches!(lang, "nl" | "da" | "it" | "ga");
    let (mut wrong, mut read) = (Vec::new(), 0);
    for &(lang, _, own, sentences) in WESTERN {
        let text = sentences.join("\n");
        if encoding("macintosh").encode(&text).2 {
            continue;
        }
        for label in [None, Some("us-ascii"), Some("utf-8")] {
            for tld in [own, "com"] {
                let (got, det) = read_from(&text, "macintosh", label, tld);
                let ok = if known_miss(lang) {
                    det.is_none_or(|d| d == "windows-1252")
                } else {
                    read += 1;
                    got == text
                };
                if !ok {
                    wrong.push(format!("{lang} {label:?} .{tld}: {det:?} {got:?}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(read, 36, "texts read as written");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any sentences of a language (one to four, in any order), in one of
    /// its charsets, without a label or under `us-ascii` or `utf-8`, from
    /// its own, a generic or a foreign domain, are read as written (as
    /// [`expected`] has it; the known misses left out) or, where the
    /// evidence is too thin, as windows-1252: never as a third charset's
    /// look-alike. Western text is windows-1252: read as written.
    #[test]
    fn sentences_without_their_label_are_read_as_written(
        which in 0..(OTHERS.len() + WESTERN.len()),
        cs_at in 0..2usize,
        picks in prop::collection::vec(any::<prop::sample::Index>(), 2..5),
        ct_at in 0..3usize,
        tld_at in 0..(FOREIGN.len() + 1),
    ) {
        let (lang, charsets, own, sentences) =
            if which < OTHERS.len() { OTHERS[which] } else { WESTERN[which - OTHERS.len()] };
        let cs = charsets[cs_at % charsets.len()];
        let mut chosen: Vec<&str> = picks.iter().map(|i| sentences[i.index(sentences.len())]).collect();
        chosen.dedup();
        let text = chosen.join("\n") + "\n";
        let tld = if tld_at == 0 { own } else { FOREIGN[tld_at - 1] };
        prop_assume!(!known_miss(lang, tld));
        let bytes = encoding_rs_encode(&text, encoding(cs));
        let got = normalized_body(&message(tld, CONTENT_TYPES[ct_at], &bytes));
        let want = expected(&text, &bytes, CONTENT_TYPES[ct_at]);
        // A sentence or two may fit one language in windows-1252 too (a
        // lone Hungarian `ő` as Portuguese `õ`, Turkish `ı ş` alone as
        // Icelandic `ý þ`): windows-1252, what mail readers show, stays.
        // Never a third reading.
        let w = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&bytes).0;
        prop_assert!(got == want || got == w, "{} {} from .{}: {:?}", lang, cs, tld, got);
    }
}

/// Turkish sentences for the long texts below, written for these tests.
const TURKISH: &[&str] = &[
    "Dosyanın boyutu çok büyük olduğu için gönderilemedi.",
    "Lütfen şifrenizi değiştirdikten sonra yeniden giriş yapın.",
    "Toplantı yarın öğleden sonra saat ikide başlayacak.",
    "Ekteki belgeyi inceleyip düşüncelerinizi bildirir misiniz?",
    "Sunucuya bağlanılamadı; ağ ayarlarınızı kontrol edin.",
    "Yazıcı kâğıt sıkışması nedeniyle durduruldu.",
    "Bu işlem geri alınamaz, devam etmek istediğinizden emin misiniz?",
    "Sipariş numaranız aşağıda yazılıdır, lütfen saklayınız.",
    "Kullanıcı adı veya parola yanlış girildi.",
    "Güncelleme başarıyla tamamlandı, bilgisayarınızı yeniden başlatın.",
    "Kargonuz dağıtım merkezine ulaştı ve bugün teslim edilecek.",
    "Hesabınızda şüpheli bir giriş denemesi tespit edildi.",
    "Yıllık izin talebiniz müdürünüz tarafından onaylandı.",
    "Fatura tutarı ödeme tarihinden önce hesabınızdan çekilecek.",
    "Kışın ısıtma giderleri artacağı için bütçeyi gözden geçirelim.",
    "Çalışma saatleri dışında gelen iletiler ertesi gün yanıtlanır.",
    "Güvenlik güncellemesi için sürücülerinizi yükseltmeniz gerekiyor.",
    "Müşteri hizmetlerimiz hafta içi dokuzdan altıya kadar açıktır.",
    "Seçtiğiniz ürün şu anda stokta bulunmuyor.",
    "Üyeliğiniz önümüzdeki ay otomatik olarak yenilenecek.",
    "Gönderdiğiniz fotoğraflar çözünürlük sınırını aşıyor.",
    "Çıktı klasörü bulunamadı, lütfen yeni bir klasör seçin.",
    "Tüm değişiklikler kaydedildi ve sürüm numarası güncellendi.",
    "Bütün çalışanların eğitime katılması zorunludur.",
    "Ücret iadesi üç iş günü içinde hesabınıza geçecektir.",
    "Öğrenci belgesi için müdürlüğe başvurmanız gerekir.",
    "Düzenlenen etkinliğe katılımınız için teşekkür ederiz.",
    "Sözleşmenin güncel sürümünü ekte bulabilirsiniz.",
];

/// Lines a long text quotes, each with a name or a loanword whose
/// letters are no Turkish ones (`Å é ë ø ñ`).
const QUOTED: &[&str] = &[
    "Katılımcı: Åsa Öberg",
    "Konu: Réunion",
    "Proje adı: Arbëreshë",
    "Adres: Ørstedsvej 12",
    "Misafir: Señor Ruiz",
];

/// A deterministic stream of picks (a linear congruential generator), so
/// that the texts below are the same on every run.
fn picks(seed: u64) -> impl FnMut(usize) -> usize {
    let mut x = seed;
    move |n| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((x >> 33) as usize) % n
    }
}

/// Long Turkish texts (fourteen to twenty-two sentences, as
/// hunt_latin_guess.py's 5,000-character texts) quoting one or two lines of names or loanwords
/// of other languages, in ISO-8859-9 and windows-1254: read as written
/// without a label, under `us-ascii` or a `utf-8` lie, and under a
/// Western label (`iso-8859-1`, `windows-1252`, `iso-8859-15`), a lie
/// caught. The Turkish reading has a word or two outside its alphabet
/// (`Señor`, `Arbëreshë`); windows-1252's has dozens (`Dosyanýn ...
/// deðiþtirdikten`). Every word had to fit one alphabet, and the whole
/// text stayed windows-1252 (`hunt_latin_guess.py` seeds 31 to 33:
/// Crimean Tatar read as written 133 of 240 before the session's rules,
/// 206 after). Before this rule 12 of the 144 were read as written.
#[test]
fn a_long_turkish_text_quoting_foreign_names_is_read_as_turkish() {
    let mut next = picks(34);
    let (mut read, mut n, mut wrong) = (0, 0, Vec::new());
    for k in 0..24 {
        let count = 14 + next(9);
        let mut lines: Vec<&str> = (0..count).map(|_| TURKISH[next(TURKISH.len())]).collect();
        for _ in 0..1 + k % 2 {
            let at = next(lines.len() + 1);
            lines.insert(at, QUOTED[next(QUOTED.len())]);
        }
        let text = lines.join("\n") + "\n";
        let cs = ["iso-8859-9", "windows-1254"][k % 2];
        let tld = ["com", "tr", "ru", "jp"][next(4)];
        let labels = [
            None,
            Some("us-ascii"),
            Some("utf-8"),
            Some("iso-8859-1"),
            Some("windows-1252"),
            Some("iso-8859-15"),
        ];
        for label in labels {
            n += 1;
            let (got, det) = read_from(&text, cs, label, tld);
            let bytes = encoding_rs_encode(&text, encoding(cs));
            let w = encoding_rs::WINDOWS_1252
                .decode_without_bom_handling(&bytes)
                .0;
            if got == text {
                read += 1;
            } else if got != w {
                wrong.push(format!("{cs} under {label:?} from .{tld}: {det:?} {got:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "third readings:\n{}", wrong.join("\n"));
    assert_eq!(n, 144);
    // One text with two quoted lines has too few words windows-1252
    // reads outside an alphabet for its label to be doubted.
    assert_eq!(read, 141, "read as written");
}

/// A reading may keep one word outside its alphabet for each eight of
/// windows-1252's, up to eight (`nearly_fitting_alternative`): all the
/// Turkish sentences above quoting three lines of foreign names (three
/// words no Turkish alphabet holds, where windows-1252 reads dozens) are
/// read as written, without a label and under a Western one.
#[test]
fn a_long_turkish_text_may_keep_a_foreign_word_for_each_eight_of_windows_1252() {
    let mut lines = TURKISH.to_vec();
    for (at, quoted) in [(3, QUOTED[0]), (12, QUOTED[1]), (20, QUOTED[2])] {
        lines.insert(at, quoted);
    }
    let text = lines.join("\n") + "\n";
    for cs in ["iso-8859-9", "windows-1254"] {
        for label in [None, Some("windows-1252")] {
            for tld in ["com", "tr"] {
                let (got, det) = read_from(&text, cs, label, tld);
                assert_eq!(got, text, "{cs} under {label:?} from .{tld}: {det:?}");
            }
        }
    }
}

/// Hungarian sentences whose one word with `ő` (`következő`), which
/// windows-1252 reads as `õ`, no Hungarian letter, and Portuguese writes
/// only before `e`; and sentences with none.
const HUNGARIAN_O: &[&str] = &[
    "A következő lépésben válassza ki a mappát.",
    "Kérem, ellenőrizze a címet.",
    "Az előző verzió már nem támogatott.",
    "A nyomtató jelenleg nem érhető el.",
    "A feltöltés befejezése előtt ne zárja be az ablakot.",
];
const HUNGARIAN: &[&str] = &[
    "Kérem, küldje el a számlát péntekig.",
    "A csomagot holnap délután szállítjuk ki.",
    "Az értekezlet a harmadik emeleti tárgyalóban lesz.",
    "Köszönjük, hogy a szolgáltatásunkat választotta.",
];

/// Short Hungarian texts (a sentence with one word of `ő`, and none to
/// two without), in ISO-8859-2 and windows-1250, without a label or under
/// `us-ascii` or a `utf-8` lie, from a Hungarian or a generic sender:
/// never a third reading, and read as written wherever chardetng guesses
/// a Central European charset. windows-1252's reading is Hungarian (or
/// Dutch) but for that one word (`következõ`); one word outside the
/// alphabet was no sign, even with chardetng saying ISO-8859-2. It is now
/// when the guess changes that word only, written in lower case (no
/// name), of three letters or more. Before, 8 of these 180 were read as
/// written (`hunt_latin_guess.py` seeds 31 to 33, with the session's
/// other rules: Hungarian windows-1250 and ISO-8859-2, 174 of 240 read as
/// written before, 203 after).
#[test]
fn a_short_hungarian_text_with_one_word_of_o_double_acute_is_read_as_written() {
    let mut next = picks(2026);
    let (mut read, mut n, mut wrong) = (0, 0, Vec::new());
    for (k, first) in HUNGARIAN_O.iter().enumerate() {
        for fillers in 0..3 {
            let mut lines = vec![*first];
            for _ in 0..fillers {
                lines.insert(next(lines.len() + 1), HUNGARIAN[next(HUNGARIAN.len())]);
            }
            let text = lines.join(" ") + "\n";
            for cs in ["iso-8859-2", "windows-1250"] {
                for ct in CONTENT_TYPES {
                    for tld in ["hu", "com"] {
                        n += 1;
                        let bytes = encoding_rs_encode(&text, encoding(cs));
                        let got = normalized_body(&message(tld, ct, &bytes));
                        let w = encoding_rs::WINDOWS_1252
                            .decode_without_bom_handling(&bytes)
                            .0;
                        if got == expected(&text, &bytes, ct) {
                            read += 1;
                        } else if got != w {
                            wrong.push(format!("{k} {cs} {ct} .{tld}: {got:?}"));
                        }
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "third readings:\n{}", wrong.join("\n"));
    assert_eq!(n, 180);
    assert_eq!(read, 146, "read as written");
}

/// Romanian sentences with cedillas (`ş ţ`, as windows-1250 and
/// ISO-8859-2 write them), written for these tests.
const ROMANIAN: &[&str] = &[
    "Mulţumesc pentru răspunsul rapid, ne vedem mâine la birou.",
    "Fişierul nu a putut fi salvat în directorul ales.",
    "Vă rugăm să verificaţi adresa de livrare înainte de plată.",
    "Şedinţa de astăzi a fost amânată pentru săptămâna viitoare.",
    "Parola trebuie să conţină cel puţin opt caractere.",
    "Comanda dumneavoastră a fost expediată şi va ajunge în trei zile.",
    "Actualizarea sistemului este obligatorie pentru toţi utilizatorii.",
    "Factura lunară este ataşată la acest mesaj.",
    "Nu s-a putut stabili conexiunea cu serverul de poştă.",
    "Vă mulţumim că aţi ales serviciile noastre.",
];

/// Romanian and Hungarian text under a Western label (`iso-8859-1`,
/// `windows-1252`, `iso-8859-15`) or none: Latin-1 reads Romanian `ă ş`
/// as `ã º` and Hungarian `ő` as `õ`, letters of Portuguese, Spanish and
/// Estonian, so its reading fitted an alphabet and the lie stood
/// (`rãdãcinã`, `fiºierul`, `ºi`, `kezelõ`). Portuguese writes `õ` only
/// before `e` and `ã` only before `o e s i` or at a word's end, and the
/// ordinal indicators `ª º` stand after a number or `n`, before no letter
/// but `s` (`alphabets::PLACES`): elsewhere they are no letters of those
/// languages. Texts of three to eight sentences, from a Romanian,
/// Hungarian or generic sender: 9 of 120 were read as written before.
/// Correct Portuguese, Spanish and Estonian text with those letters in
/// their places keeps its label.
#[test]
fn romanian_and_hungarian_under_a_western_label_are_read_as_written() {
    let mut next = picks(1250);
    let (mut read, mut n, mut wrong) = (0, 0, Vec::new());
    for k in 0..40 {
        let (pool, tld) = if k % 2 == 0 {
            (ROMANIAN, ["ro", "com"][next(2)])
        } else {
            (HUNGARIAN_O, ["hu", "com"][next(2)])
        };
        let count = 3 + next(6);
        let text = (0..count)
            .map(|_| pool[next(pool.len())])
            .collect::<Vec<_>>()
            .join("\n")
            + "\n";
        let cs = ["iso-8859-2", "windows-1250"][(k / 2) % 2];
        for label in ["iso-8859-1", "windows-1252", "iso-8859-15"] {
            n += 1;
            let (got, det) = read_from(&text, cs, Some(label), tld);
            let bytes = encoding_rs_encode(&text, encoding(cs));
            let own = encoding(label).decode_without_bom_handling(&bytes).0;
            if got == text {
                read += 1;
            } else if got != own {
                wrong.push(format!("{cs} under {label} from .{tld}: {det:?} {got:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "third readings:\n{}", wrong.join("\n"));
    assert_eq!(n, 120);
    assert_eq!(read, 105, "read as written");
    // Correct text with those letters where their languages write them.
    let correct = [
        "Não foi possível concluir as operações; as opções estão no menu.\nA mãe e as irmãs chegam amanhã de manhã.\nO 1º andar fica à esquerda, nº 5, e as 2ªs feiras estão livres.\nAs ligações põem em risco as informações.\n",
        "¿Vienes mañana? 2ª edición, nº 5.\nEl 1º de mayo, los nºs 3 y 4 están en la 3ª planta.\nGracias por la respuesta rápida, señor Muñoz.\n",
        "Kas sa tuled õhtul? Või homme hommikul.\nTõlge on valmis ja sõnum on saadetud.\nPõhjus jääb selgusetuks, kõik on õige.\n",
    ];
    for text in correct {
        for label in ["iso-8859-1", "windows-1252", "iso-8859-15"] {
            for tld in ["com", "pt", "ro", "hu"] {
                assert_eq!(
                    read_from(text, "windows-1252", Some(label), tld),
                    (text.to_string(), None),
                    "{label} from .{tld}"
                );
            }
        }
        for tld in ["com", "pt", "ro", "hu"] {
            assert_eq!(read_from(text, "windows-1252", None, tld).0, text, ".{tld}");
        }
    }
}
