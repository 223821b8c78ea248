//! Helpers shared by the unit tests.

/// Random test input: a stream of `u64` from `seed`, the same for the same
/// seed (the project's one generator, `fastrand`, a dev-dependency).
pub(crate) fn random_u64s(seed: u64) -> impl FnMut() -> u64 {
    let mut rng = fastrand::Rng::with_seed(seed);
    move || rng.u64(..)
}

/// A small LGR with context rules on an element (`b`, `not-when`) and on a
/// variant (`c` → `a`, `when`), both the rule `rule_name`: `lb` before.
pub(crate) fn context_lgr(rule_name: &str, lb: &str) -> crate::lgr::Lgr {
    let xml = format!(
        r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>
          <char cp="0061"/>
          <char cp="0062" not-when="{rule_name}"/>
          <char cp="0063"><var cp="0061" when="{rule_name}"/></char>
          <char cp="0063 0061"/>
        </data><rules>
          <rule name="{rule_name}"><look-behind><char cp="{lb}"/></look-behind><anchor/></rule>
        </rules></lgr>"#
    );
    crate::lgr::Lgr::from_xml("t", &xml).expect("compiles")
}
