//! How the pass builds what an input is expanded to when the target is not a constant: before opset 8
//! (no Expand) a Reshape and a Tile of static sizes; with symbolic sizes, the target shape computed at
//! run time from `Shape` of the node's other inputs (and `Gather`/`Concat` of its parts), so a dynamic
//! model stays dynamic.

use super::*;

impl GraphRewriter<'_, '_> {
    /// Before opset 8 there is no Expand: the input is reshaped to the output's rank (at `axis` for the
    /// legacy rule: B's shape padded with rank(A) - axis - rank(B) trailing ones) and tiled to the
    /// output's sizes. Tile repeats (not computes) values, so the result is bit-identical too. Only
    /// static shapes can be done this way: repeat counts of symbolic sizes would need arithmetic.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn tile(
        &mut self,
        op: &OpNode,
        k: &Kind,
        slot: usize,
        input: &str,
        in_shape: &Shape,
        out_shape: &Shape,
        base: &str,
    ) -> Result<(), BroadcastError> {
        let label = op.label().into_owned();
        let refuse = |why: &str| BroadcastError::NoExpand {
            node: place(&label, op, self.g),
            why: why.to_owned(),
            opset: self.opset,
        };
        if self.opset < 6 {
            return Err(refuse("Tile with a repeats input needs opset 6"));
        }
        let (Some(from), Some(to)) = (is_static(in_shape), is_static(out_shape)) else {
            return Err(refuse(&format!(
                "the broadcast {} -> {} is not static",
                format_shape(in_shape),
                format_shape(out_shape)
            )));
        };
        if from.len() > to.len() {
            return Err(refuse("the input has more axes than the output"));
        }
        let lead = match k {
            Kind::LegacyAxis(Some(axis)) if *axis >= 0 => *axis as usize,
            _ => to.len() - from.len(),
        };
        let Some(trail) = to.len().checked_sub(lead + from.len()) else {
            return Err(refuse(
                "the input does not fit in the output's rank at its axis",
            ));
        };
        let padded: Vec<u64> = std::iter::repeat_n(1, lead)
            .chain(from.iter().copied())
            .chain(std::iter::repeat_n(1, trail))
            .collect();
        let repeats: Vec<i64> = padded
            .iter()
            .zip(&to)
            .map(|(&p, &t)| if p == t { 1 } else { t as i64 })
            .collect();
        let mut current = input.to_owned();
        if padded != from {
            let values: Vec<i64> = padded.iter().map(|&d| d as i64).collect();
            let shape = self.const_i64(op.index(), &format!("{base}/rank_shape"), &values);
            let name = self.names.fresh(&format!("{base}/reshape"));
            let reshape = node(
                "Reshape",
                name.clone(),
                vec![current, shape],
                vec![name.clone()],
            );
            self.insert(op.index(), reshape);
            current = name;
        }
        if repeats.iter().any(|&r| r != 1) {
            let reps = self.const_i64(op.index(), &format!("{base}/repeats"), &repeats);
            let name = self.names.fresh(base);
            self.insert(
                op.index(),
                node(
                    "Tile",
                    name.clone(),
                    vec![current, reps],
                    vec![name.clone()],
                ),
            );
            current = name;
        }
        self.patch.rewire(op.index(), slot, &current);
        if let Kind::LegacyAxis(_) = k {
            // With B of A's shape the legacy rule no longer applies (B would not fit at `axis`):
            // the node becomes a plain equal-shapes one.
            for (i, a) in op.attributes().iter().enumerate() {
                if a.name() == "broadcast" || a.name() == "axis" {
                    self.patch.drop_attribute(op.index(), i);
                }
            }
        }
        self.report(op, &label, slot, in_shape, out_shape);
        Ok(())
    }

    /// A value holding the output shape, computed at run time. For multidirectional ops: the shape of
    /// an input already of the output's shape if there is one, else the broadcast of the others built
    /// with Expand (which is itself bidirectional). For X-shaped ops: Shape(X). For Gemm: [M, N] taken
    /// from A and B.
    pub(super) fn runtime_target(
        &mut self,
        op: &OpNode,
        k: &Kind,
        slot: usize,
        base: &str,
    ) -> Option<String> {
        let g = self.g;
        let out_shape = self.output_shape(op);
        let at = op.index();
        match k {
            Kind::ToFirst(_) => Some(self.shape_node(at, g.input_name(op, 0), base)),
            Kind::Normalized(_) => {
                // Shape's `start` (opset 15; these ops start at 17) takes the normalized part, and a
                // negative start works whatever X's rank turns out to be.
                let start = AttributeProto {
                    name: Some("start".into()),
                    r#type: Some(AttributeType::Int as i32),
                    i: Some(sites::norm_axis(op)),
                    ..Default::default()
                };
                Some(self.shape_node_with(at, g.input_name(op, 0), base, vec![start]))
            }
            Kind::LegacyAxis(_) => None,
            Kind::AttentionBias(_) => {
                // [batch] from the query's shape, then num_heads, q and kv: numbers, or the bias's
                // own last two axes read at run time (Shape's `start`, opset 15).
                let dims = attention_bias_target(
                    &self.input_shape(op, 0),
                    &self.input_shape(op, slot),
                    num_heads(op),
                )?;
                let q = g.input_name(op, 0);
                let shape = self.shape_node(at, q, &format!("{base}/query"));
                let first = self.const_i64(at, &format!("{base}/batch_axis"), &[0]);
                let batch = self.names.fresh(&format!("{base}/batch"));
                self.insert(
                    at,
                    node(
                        "Gather",
                        batch.clone(),
                        vec![shape, first],
                        vec![batch.clone()],
                    ),
                );
                let known = |d: &Dim| match d {
                    Dim::Known(n) => i64::try_from(*n).ok(),
                    _ => None,
                };
                let mut parts = vec![batch];
                let [_, h, q, kv] = dims.as_slice() else {
                    return None;
                };
                match (known(h), known(q), known(kv)) {
                    (Some(h), Some(q), Some(kv)) => {
                        parts.push(self.const_i64(at, &format!("{base}/rest"), &[h, q, kv]));
                    }
                    (Some(h), _, _) if self.opset >= 15 => {
                        parts.push(self.const_i64(at, &format!("{base}/heads"), &[h]));
                        let start = AttributeProto {
                            name: Some("start".into()),
                            r#type: Some(AttributeType::Int as i32),
                            i: Some(-2),
                            ..Default::default()
                        };
                        let bias = g.input_name(op, slot);
                        parts.push(self.shape_node_with(
                            at,
                            bias,
                            &format!("{base}/qkv"),
                            vec![start],
                        ));
                    }
                    _ => return None,
                }
                Some(self.concat(at, &format!("{base}/target"), parts))
            }
            Kind::GemmC => {
                let trans = |n: &str| {
                    op.attributes()
                        .iter()
                        .any(|a| a.name() == n && a.i.unwrap_or(0) != 0)
                };
                let m_axis = if trans("transA") { 1 } else { 0 };
                let n_axis = if trans("transB") { 0 } else { 1 };
                let sa = self.shape_node(at, g.input_name(op, 0), &format!("{base}/shape_a"));
                let sb = self.shape_node(at, g.input_name(op, 1), &format!("{base}/shape_b"));
                let ia = self.const_i64(at, &format!("{base}/m_axis"), &[m_axis]);
                let ib = self.const_i64(at, &format!("{base}/n_axis"), &[n_axis]);
                let m = self.names.fresh(&format!("{base}/m"));
                let n = self.names.fresh(&format!("{base}/n"));
                self.insert(at, node("Gather", m.clone(), vec![sa, ia], vec![m.clone()]));
                self.insert(at, node("Gather", n.clone(), vec![sb, ib], vec![n.clone()]));
                Some(self.concat(at, &format!("{base}/mn"), vec![m, n]))
            }
            Kind::Multi | Kind::MultiOf(_) => {
                // Only the broadcast operands take part (a QLinearAdd's scales do not).
                let inputs: Vec<&str> = g
                    .input_names(op)
                    .enumerate()
                    .map(|(j, n)| match k {
                        Kind::MultiOf(s) if !s.contains(&j) => "",
                        _ => n,
                    })
                    .collect();
                // An input already of the output's shape gives the target directly.
                if let Some(full) = inputs
                    .iter()
                    .enumerate()
                    .find(|(j, n)| {
                        *j != slot
                            && !n.is_empty()
                            && same_shape(&self.input_shape(op, *j), &out_shape)
                    })
                    .map(|(_, n)| *n)
                {
                    return Some(self.shape_node(at, full, base));
                }
                // Otherwise broadcast the other inputs together: Expand(x1, Shape(x2)) ... then Shape.
                let others: Vec<&str> = inputs
                    .iter()
                    .enumerate()
                    .filter(|(j, n)| *j != slot && !n.is_empty())
                    .map(|(_, n)| *n)
                    .collect();
                let (first, rest) = others.split_first()?;
                let mut acc = (*first).to_owned();
                for (i, other) in rest.iter().enumerate() {
                    let s = self.shape_node(at, other, &format!("{base}/shape{i}"));
                    let e = self.names.fresh(&format!("{base}/bcast{i}"));
                    self.insert(at, node("Expand", e.clone(), vec![acc, s], vec![e.clone()]));
                    acc = e;
                }
                // The input itself joins too: its own size may be the larger on some axis.
                let own = self.shape_node(at, inputs.get(slot)?, &format!("{base}/own"));
                let e = self.names.fresh(&format!("{base}/bcast_own"));
                self.insert(
                    at,
                    node("Expand", e.clone(), vec![acc, own], vec![e.clone()]),
                );
                Some(self.shape_node(at, &e, base))
            }
        }
    }

    pub(super) fn shape_node(&mut self, at: usize, of: &str, base: &str) -> String {
        self.shape_node_with(at, of, base, Vec::new())
    }

    /// A `Concat` (axis 0) of the 1-D tensors `parts`, inserted before the consumer at `at`.
    pub(super) fn concat(&mut self, at: usize, base: &str, parts: Vec<String>) -> String {
        let name = self.names.fresh(base);
        let mut n = node("Concat", name.clone(), parts, vec![name.clone()]);
        n.attribute.push(AttributeProto {
            name: Some("axis".into()),
            r#type: Some(AttributeType::Int as i32),
            i: Some(0),
            ..Default::default()
        });
        self.insert(at, n);
        name
    }

    /// A `Shape` node of `of` with these attributes, inserted before the consumer at `at`.
    pub(super) fn shape_node_with(
        &mut self,
        at: usize,
        of: &str,
        base: &str,
        attribute: Vec<AttributeProto>,
    ) -> String {
        let name = self.names.fresh(&format!("{base}/shape"));
        self.patch
            .insert_node(at, "Shape", &name, &[of], &[&name], &attribute);
        name
    }
}
