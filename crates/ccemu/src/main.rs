//! The `ccemu` binary: the emulator of lib.rs (its protocol is documented there).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(ccemu::run(&args));
}
