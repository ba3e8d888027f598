//! Model-local function rule (G009): functions must not call themselves, directly or through other
//! functions. ONNX functions are expanded inline, so recursion has no meaning; a tool that followed
//! the calls would never stop.

use crate::diagnostics::{Code, Diagnostic};
use crate::ir::Model;
use std::collections::HashMap;

pub fn check(model: &Model) -> Vec<Diagnostic> {
    let index: HashMap<(&str, &str), usize> = model
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| ((f.domain(), f.name()), i))
        .collect();
    // calls[i]: the functions function i calls, anywhere in its body (subgraphs included).
    let calls: Vec<Vec<usize>> = model
        .functions
        .iter()
        .map(|f| {
            let mut out = Vec::new();
            f.body.walk(&mut |g| {
                for op in g.ops_in_source_order() {
                    if let Some(&j) = index.get(&(op.domain(), op.op_type()))
                        && !out.contains(&j)
                    {
                        out.push(j);
                    }
                }
            });
            out
        })
        .collect();
    // A cycle stays within one strongly connected component: the search for one through each
    // function is limited to its component, and skipped where the component has no cycle (a DFS from
    // every function over the whole call graph was quadratic in a chain of 100,000 functions).
    let component = components(&calls);
    let mut size = vec![0usize; calls.len()];
    for &c in &component {
        size[c] += 1;
    }
    let mut out = Vec::new();
    let mut reported = vec![false; calls.len()];
    for start in 0..calls.len() {
        if reported[start] || (size[component[start]] == 1 && !calls[start].contains(&start)) {
            continue;
        }
        if let Some(cycle) = cycle_through(start, &calls, &component) {
            for &i in &cycle {
                reported[i] = true;
            }
            let names: Vec<String> = cycle
                .iter()
                .chain(std::iter::once(&cycle[0]))
                .map(|&i| {
                    let f = &model.functions[i];
                    format!("{}.{}", f.domain(), f.name())
                })
                .collect();
            let what = if cycle.len() == 1 {
                format!("function {} calls itself", names[0])
            } else {
                format!(
                    "functions call each other in a cycle: {}",
                    names.join(" -> ")
                )
            };
            out.push(Diagnostic::new(
                Code::RecursiveFunction,
                &model.functions[start].body.path,
                what,
            ));
        }
    }
    out
}

/// A cycle of calls that starts and ends at `start`, if there is one (iterative DFS: a hostile
/// model's call chains cannot overflow the stack).
fn cycle_through(start: usize, calls: &[Vec<usize>], component: &[usize]) -> Option<Vec<usize>> {
    let mut path = vec![start];
    let mut next = vec![0usize];
    let mut on_path = vec![false; calls.len()];
    let mut done = vec![false; calls.len()];
    on_path[start] = true;
    while let (Some(&node), Some(k)) = (path.last(), next.last_mut()) {
        if let Some(&callee) = calls[node].get(*k) {
            *k += 1;
            if callee == start {
                return Some(path);
            }
            if !on_path[callee] && !done[callee] && component[callee] == component[start] {
                on_path[callee] = true;
                path.push(callee);
                next.push(0);
            }
        } else {
            on_path[node] = false;
            done[node] = true;
            path.pop();
            next.pop();
        }
    }
    None
}

/// The strongly connected component of each function in the call graph, as an index (petgraph's
/// Kosaraju walks with explicit stacks: no recursion however long the chains).
fn components(calls: &[Vec<usize>]) -> Vec<usize> {
    let mut g = petgraph::Graph::<(), ()>::with_capacity(calls.len(), 0);
    let nodes: Vec<_> = (0..calls.len()).map(|_| g.add_node(())).collect();
    for (i, callees) in calls.iter().enumerate() {
        for &j in callees {
            g.add_edge(nodes[i], nodes[j], ());
        }
    }
    let mut component = vec![0usize; calls.len()];
    for (c, members) in petgraph::algo::kosaraju_scc(&g).into_iter().enumerate() {
        for n in members {
            component[n.index()] = c;
        }
    }
    component
}
