//! Bounds on rules and classes with their references followed (RFC 7940
//! §6.2, §6.3), checked before anything is built.
//!
//! A rule refers to other rules by name (`<rule by-ref="…"/>`) and the
//! compiler inlines them, so a rule's size is that of its expansion: a
//! chain of 30 rules each referring to the next twice expands to 2^30
//! elements from a 2 KB file. [`rule_bounds`] measures every rule's
//! expansion on the reference graph, each rule once (sizes add up along
//! the references, so shared rules are counted without being expanded),
//! and refuses one over [`MAX_RULE_ELEMENTS`] or [`MAX_RULE_DEPTH`]. The
//! graphs are walked with an explicit stack, so a chain of 20,000
//! references is measured, not followed on the call stack; cycles are
//! reported here with the chain of names. [`used_rules`] tells which
//! rules are ever evaluated (their automata are built only for those).

use super::model::{ClassExpr, LgrDoc, Matcher};
use std::collections::HashMap;

/// Most elements a rule may expand to with its rule references inlined.
/// ICANN's published LGRs expand to at most 20.
pub const MAX_RULE_ELEMENTS: u64 = 10_000;

/// Deepest nesting a rule may have with its rule references inlined: the
/// compiler follows it on the call stack. ICANN's LGRs nest at most 7 deep.
pub const MAX_RULE_DEPTH: u32 = 128;

/// Visits nodes `0..n` of a reference graph in post order (a node after
/// the nodes it refers to), roots in order. `refs` lists a node's
/// references; on a cycle, `cycle` makes the error from the path (the
/// root first) and the node referred to again.
fn post_order<E>(
    n: usize,
    refs: impl Fn(usize) -> Vec<usize>,
    mut visit: impl FnMut(usize) -> Result<(), E>,
    cycle: impl Fn(&[usize], usize) -> E,
) -> Result<(), E> {
    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    let mut state = vec![NEW; n];
    for root in 0..n {
        if state[root] != NEW {
            continue;
        }
        state[root] = ON_PATH;
        let mut path: Vec<(usize, Vec<usize>, usize)> = vec![(root, refs(root), 0)];
        while let Some((node, kids, next)) = path.last_mut() {
            if let Some(&k) = kids.get(*next) {
                *next += 1;
                match state[k] {
                    NEW => {
                        state[k] = ON_PATH;
                        path.push((k, refs(k), 0));
                    }
                    ON_PATH => {
                        let nodes: Vec<usize> = path.iter().map(|p| p.0).collect();
                        return Err(cycle(&nodes, k));
                    }
                    _ => {}
                }
            } else {
                let node = *node;
                path.pop();
                state[node] = ON_PATH + 1;
                visit(node)?;
            }
        }
    }
    Ok(())
}

/// The rules `ms` refers to by name, defined ones only (an undefined one
/// is reported by the compiler).
fn rule_refs(ms: &[Matcher], ids: &HashMap<&str, u32>) -> Vec<usize> {
    let mut out = Vec::new();
    let mut todo: Vec<&Matcher> = ms.iter().collect();
    while let Some(m) = todo.pop() {
        match m {
            Matcher::RuleRef(n, _) => out.extend(ids.get(n.as_str()).map(|&i| i as usize)),
            Matcher::Seq(s, _)
            | Matcher::Choice(s, _)
            | Matcher::LookAhead(s)
            | Matcher::LookBehind(s) => todo.extend(s),
            _ => {}
        }
    }
    out
}

/// Elements and depth of `ms` with rule references taken from `done`
/// (sizes saturate; an undefined reference counts as one element).
fn measure(ms: &[Matcher], ids: &HashMap<&str, u32>, done: &[(u64, u32)]) -> (u64, u32) {
    let mut size = 0u64;
    let mut depth = 0u32;
    for m in ms {
        let (s, d) = match m {
            Matcher::RuleRef(n, _) => ids.get(n.as_str()).map_or((0, 0), |&i| done[i as usize]),
            Matcher::Seq(s, _)
            | Matcher::Choice(s, _)
            | Matcher::LookAhead(s)
            | Matcher::LookBehind(s) => measure(s, ids, done),
            _ => (0, 0),
        };
        size = size.saturating_add(s).saturating_add(1);
        depth = depth.max(d.saturating_add(1));
    }
    (size, depth)
}

/// Checks every rule of `doc` against [`MAX_RULE_ELEMENTS`] and
/// [`MAX_RULE_DEPTH`] and for cyclic references, without expanding any.
///
/// # Errors
/// The first rule (in post order) over a limit, or the first cycle, as
/// `(rule index, message)`.
pub(crate) fn rule_bounds(doc: &LgrDoc, ids: &HashMap<&str, u32>) -> Result<(), (usize, String)> {
    let mut done = vec![(0u64, 0u32); doc.rules.len()];
    post_order(
        doc.rules.len(),
        |r| rule_refs(&doc.rules[r].body, ids),
        |r| {
            let (size, depth) = measure(&doc.rules[r].body, ids, &done);
            if size > MAX_RULE_ELEMENTS {
                return Err((
                    r,
                    format!(
                        "expands to {} elements with its rule references inlined, more than \
                         {MAX_RULE_ELEMENTS}",
                        if size == u64::MAX {
                            "2^64 or more".to_string()
                        } else {
                            size.to_string()
                        }
                    ),
                ));
            }
            if depth > MAX_RULE_DEPTH {
                return Err((
                    r,
                    format!(
                        "nests {depth} deep with its rule references inlined, more than \
                         {MAX_RULE_DEPTH}"
                    ),
                ));
            }
            done[r] = (size, depth);
            Ok(())
        },
        |path, again| {
            let mut chain: Vec<&str> = path.iter().map(|&i| doc.rules[i].name.as_str()).collect();
            chain.push(&doc.rules[again].name);
            (path[0], format!("cyclic rule reference: {}", chain.join(" -> ")))
        },
    )
}

/// The classes `e` refers to by name, defined ones only.
fn class_refs(e: &ClassExpr, ids: &HashMap<&str, usize>) -> Vec<usize> {
    let mut out = Vec::new();
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        match e {
            ClassExpr::Ref(n) => out.extend(ids.get(n.as_str()).copied()),
            ClassExpr::Union(k)
            | ClassExpr::Intersection(k)
            | ClassExpr::Difference(k)
            | ClassExpr::SymmetricDifference(k) => todo.extend(k),
            ClassExpr::Complement(k) => todo.push(k),
            _ => {}
        }
    }
    out
}

/// The named classes of `doc` in an order in which each comes after the
/// classes it refers to, so that resolving them in turn never follows a
/// chain of references on the call stack.
///
/// # Errors
/// A cycle, as `(class index, message)`.
pub(crate) fn class_order(
    doc: &LgrDoc,
    ids: &HashMap<&str, usize>,
) -> Result<Vec<usize>, (usize, String)> {
    let mut order = Vec::with_capacity(doc.classes.len());
    post_order(
        doc.classes.len(),
        |c| class_refs(&doc.classes[c].expr, ids),
        |c| {
            order.push(c);
            Ok(())
        },
        |path, again| {
            let mut chain: Vec<&str> = path.iter().map(|&i| doc.classes[i].name.as_str()).collect();
            chain.push(&doc.classes[again].name);
            (path[0], format!("cyclic class reference: {}", chain.join(" -> ")))
        },
    )?;
    Ok(order)
}

/// Which rules of `doc` are used: named by an action (`match`,
/// `not-match`) or by the `when` / `not-when` of a code point or variant
/// (RFC 7940 §5.3.5, §7.2). Other rules are never evaluated.
pub(crate) fn used_rules(doc: &LgrDoc, rule_ids: &HashMap<&str, u32>) -> Vec<bool> {
    let mut used = vec![false; doc.rules.len()];
    let mut mark = |n: &String| {
        if let Some(&r) = rule_ids.get(n.as_str()) {
            used[r as usize] = true;
        }
    };
    for a in &doc.actions {
        a.match_rule.iter().chain(&a.not_match_rule).for_each(&mut mark);
    }
    for c in &doc.chars {
        let contexts = c.variants.iter().map(|v| (&v.when, &v.not_when));
        for (when, not_when) in contexts.chain([(&c.when, &c.not_when)]) {
            when.iter().chain(not_when).for_each(&mut mark);
        }
    }
    used
}
