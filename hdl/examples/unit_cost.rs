fn main() {
    let m: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(23);
    for kind in [
        queens_hdl::ArbiterKind::Adder,
        queens_hdl::ArbiterKind::Carry4,
        queens_hdl::ArbiterKind::Prefix,
    ] {
        let v = queens_hdl::emit::unit_verilog(m, kind, "queens_unit");
        println!(
            "{kind:?}: {:?}",
            queens_hdl::report::synthesize(&v, "queens_unit")
        );
    }
}
