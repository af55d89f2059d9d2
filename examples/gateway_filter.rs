//! placeholder
use std::io::Read;
fn main() {
    let mut raw = Vec::new();
    std::io::stdin().read_to_end(&mut raw).unwrap();
    let n = mailcharset::normalize::normalize(&raw, &Default::default()).unwrap();
    use std::io::Write;
    std::io::stdout().write_all(&n.bytes).unwrap();
    eprintln!("{}", serde_json::to_string(&n.report).unwrap());
}
