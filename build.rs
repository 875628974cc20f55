//! Lists the facts file of every API folder (`src/apis/NAME/facts.toml`)
//! for the crate to compile in, so that an API's facts come with its
//! folder and adding an API touches no list.

use std::fmt::Write;
use std::path::Path;
use std::{env, fs};

fn main() {
    let apis = Path::new("src/apis");
    println!("cargo::rerun-if-changed=src/apis");
    let mut folders: Vec<String> = fs::read_dir(apis)
        .expect("src/apis")
        .map(|entry| entry.expect("src/apis entry").path())
        .filter(|path| path.join("facts.toml").is_file())
        .map(|path| {
            let name = path.file_name().expect("a folder name").to_str();
            name.expect("a UTF-8 folder name").to_owned()
        })
        .collect();
    folders.sort();
    let mut list = String::from("&[\n");
    for name in &folders {
        writeln!(
            list,
            "    (\"{name}/facts.toml\", include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/src/apis/{name}/facts.toml\"))),"
        )
        .expect("writing to a String");
    }
    list.push(']');
    let out = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("api_facts.rs");
    fs::write(out, list).expect("writing the list of API facts");
}
