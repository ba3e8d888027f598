"""Contracts of the recurrent layers (src/shape/ops/rnn.rs): RNN, GRU, LSTM, layout 0 (onnxruntime refuses
layout 1 at load)."""

import numpy as np
from nodecase import Case, In

K = {"RNN": 1, "GRU": 3, "LSTM": 4}
SEQ, BATCH, INPUT, HIDDEN = 5, 2, 3, 4


def case(name, op, inputs, contract, **kw):
    outputs = 3 if op == "LSTM" else 2
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 14), contract=contract, outputs=outputs, **kw)


def layer(op, name, contract, x=None, W=None, R=None, B=None, lens=None, h0=None, c0=None, P=None, dirs=1, fed=False, **kw):
    """One recurrent node: the shapes given replace the valid ones; weights constant unless `fed`."""
    k = K[op]
    attrs = {"hidden_size": HIDDEN, **kw.pop("attrs", {})}
    if dirs == 2:
        attrs["direction"] = "bidirectional"
    inputs = [
        In(x or [SEQ, BATCH, INPUT]),
        In(W or [dirs, k * HIDDEN, INPUT], const=not fed),
        In(R or [dirs, k * HIDDEN, HIDDEN], const=not fed),
    ]
    optional = [B, lens, h0] + ([c0, P] if op == "LSTM" else [])
    for slot, shape in enumerate(optional, start=3):
        if shape is None:
            inputs.append(None)
        elif slot == 4:
            # Every sequence as long as X: the lengths' values are valid whatever the batch.
            n = shape[0] if isinstance(shape[0], int) else kw["bind"][shape[0]]
            inputs.append(In(shape, "int32", value=np.full([n], SEQ, "int32"), const=isinstance(shape[0], int)))
        else:
            inputs.append(In(shape, const=not fed))
    while inputs[-1] is None:
        inputs.pop()
    return case(f"{op}/{name}", op, inputs, contract, attrs=attrs, **kw)


CASES = []
for op, k in K.items():
    lstm = op == "LSTM"
    CASES += [
        # recurrent-x-rank: onnx's inference, at load.
        layer(op, "x-rank", "recurrent-x-rank", opset=7),
        layer(op, "x-rank-2", "recurrent-x-rank", x=[SEQ, INPUT], fault=True),
        layer(op, "x-rank-4", "recurrent-x-rank", x=[SEQ, BATCH, 1, INPUT], fault=True),
        # recurrent-w: [num_directions, k * hidden_size, input_size].
        layer(op, "w", "recurrent-w"),
        layer(op, "w-bidirectional", "recurrent-w", dirs=2),
        layer(op, "w-symbolic", "recurrent-w", x=["s", "b", "i"], bind={"s": 3, "b": 2, "i": INPUT}),
        layer(op, "w-hidden", "recurrent-w", W=[1, k * 5, INPUT], fault=True),
        layer(op, "w-input-size", "recurrent-w", W=[1, k * HIDDEN, 2], fault=True),
        layer(op, "w-directions", "recurrent-w", W=[2, k * HIDDEN, INPUT], fault=True),
        layer(op, "w-rank", "recurrent-w", W=[k * HIDDEN, INPUT], fault=True),
        layer(op, "w-fed", "recurrent-w", W=[1, k * 5, INPUT], fed=True, fault=True),
        layer(
            op,
            "w-symbolic-fault",
            "recurrent-w",
            x=[SEQ, BATCH, "i"],
            W=[1, k * HIDDEN, "j"],
            fed=True,
            bind={"i": 3, "j": 2},
            fault=True,
            symbolic_fault=True,
        ),
        # recurrent-r: [num_directions, k * hidden_size, hidden_size]; LSTM's kernel checks it too.
        layer(op, "r", "recurrent-r", R=[1, k * HIDDEN, HIDDEN]),
        layer(op, "r-hidden-last", "recurrent-r", R=[1, k * HIDDEN, 5], fault=True),
        layer(op, "r-hidden-middle", "recurrent-r", R=[1, k * 5, HIDDEN], fault=True),
        layer(op, "r-hidden-smaller", "recurrent-r", R=[1, k * 3, 3], fault=True),
        layer(op, "r-hidden-fed", "recurrent-r", R=[1, k * HIDDEN, 5], fed=True, fault=True),
        layer(op, "r-directions", "recurrent-r", R=[2, k * HIDDEN, HIDDEN], fault=True),
        # recurrent-b: [num_directions, 2 * k * hidden_size].
        layer(op, "b", "recurrent-b", B=[1, 2 * k * HIDDEN]),
        layer(op, "b-bidirectional", "recurrent-b", B=[2, 2 * k * HIDDEN], dirs=2),
        layer(op, "b-length", "recurrent-b", B=[1, 2 * k * HIDDEN + 1], fault=True),
        layer(op, "b-half", "recurrent-b", B=[1, k * HIDDEN], fault=True),
        layer(op, "b-directions", "recurrent-b", B=[2, 2 * k * HIDDEN], fault=True),
        # recurrent-sequence-lens: [batch_size].
        layer(op, "lens", "recurrent-sequence-lens", lens=[BATCH]),
        layer(op, "lens-symbolic", "recurrent-sequence-lens", x=[SEQ, "b", INPUT], lens=["b"], bind={"b": 3}),
        layer(op, "lens-long", "recurrent-sequence-lens", lens=[3], fault=True),
        layer(
            op,
            "lens-symbolic-fault",
            "recurrent-sequence-lens",
            x=[SEQ, "b", INPUT],
            lens=["n"],
            bind={"b": 2, "n": 3},
            fault=True,
            symbolic_fault=True,
        ),
        # recurrent-initial-state: [num_directions, batch_size, hidden_size].
        layer(op, "initial-h", "recurrent-initial-state", h0=[1, BATCH, HIDDEN]),
        layer(op, "initial-h-bidirectional", "recurrent-initial-state", h0=[2, BATCH, HIDDEN], dirs=2),
        layer(op, "initial-h-batch", "recurrent-initial-state", h0=[1, 3, HIDDEN], fault=True),
        layer(op, "initial-h-hidden", "recurrent-initial-state", h0=[1, BATCH, 5], fault=True),
        layer(op, "initial-h-directions", "recurrent-initial-state", h0=[2, BATCH, HIDDEN], fault=True),
        layer(op, "initial-h-empty-batch", "recurrent-initial-state", x=[SEQ, 0, INPUT], h0=[1, 1, HIDDEN], fault=True),
        layer(
            op,
            "initial-h-symbolic-fault",
            "recurrent-initial-state",
            x=[SEQ, "b", INPUT],
            h0=[1, "n", HIDDEN],
            fed=True,
            bind={"b": 2, "n": 3},
            fault=True,
            symbolic_fault=True,
        ),
    ]
    if lstm:
        CASES += [
            layer(op, "initial-c", "recurrent-initial-state", h0=[1, BATCH, HIDDEN], c0=[1, BATCH, HIDDEN]),
            layer(op, "initial-c-batch", "recurrent-initial-state", c0=[1, 3, HIDDEN], fault=True),
            layer(op, "initial-c-hidden", "recurrent-initial-state", c0=[1, BATCH, 5], fault=True),
            # lstm-peepholes: [num_directions, 3 * hidden_size].
            layer(op, "peepholes", "lstm-peepholes", P=[1, 3 * HIDDEN]),
            layer(op, "peepholes-bidirectional", "lstm-peepholes", P=[2, 3 * HIDDEN], dirs=2),
            layer(op, "peepholes-length", "lstm-peepholes", P=[1, 3 * HIDDEN + 1], fault=True),
            layer(op, "peepholes-directions", "lstm-peepholes", P=[2, 3 * HIDDEN], fault=True),
        ]
