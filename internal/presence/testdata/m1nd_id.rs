// m1nd_id.rs prints m1nd's stable_presence_id (maxkle1nz/m1nd,
// m1nd-mcp/src/presence.rs) with std alone: one line of input a case,
// "id,<hex agent_id>,<hex brain>" for the id, "raw,<hex bytes>" for the
// bare DefaultHasher sum of the bytes. Our own lines, for TestIDAgainstRust.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io::{self, BufRead, Write};

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn main() {
    let mut out = io::stdout().lock();
    for line in io::stdin().lock().lines() {
        let line = line.unwrap();
        let f: Vec<&str> = line.split(',').collect();
        let mut h = DefaultHasher::new();
        if f[0] == "raw" {
            h.write(&unhex(f[1]));
            writeln!(out, "{:016x}", h.finish()).unwrap();
        } else {
            let agent = String::from_utf8(unhex(f[1])).unwrap();
            let brain = String::from_utf8(unhex(f[2])).unwrap();
            agent.as_str().hash(&mut h);
            0u8.hash(&mut h);
            brain.as_str().hash(&mut h);
            writeln!(out, "prs_{:012x}", h.finish() & 0xffff_ffff_ffff).unwrap();
        }
    }
}
