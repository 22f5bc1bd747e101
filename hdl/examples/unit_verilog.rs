fn main() {
    let m: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(23);
    let kind = std::env::args()
        .nth(2)
        .and_then(|s| queens_hdl::ArbiterKind::parse(&s))
        .unwrap_or_default();
    print!(
        "{}",
        queens_hdl::emit::unit_verilog(
            queens_hdl::emit::Part {
                unit: queens_core::UnitKind::Plain,
                m,
                arbiter: kind,
                pipe: Default::default(),
            },
            "queens_unit"
        )
    );
}
