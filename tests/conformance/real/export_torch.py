"""Exports the torch models of the real-model corpus, and their onnxruntime-quantized variants.

Run with the export venv (torch, onnxscript, transformers; several GB, never needed by CI):

    python=$(tools/venv-export.sh) && $python tests/conformance/real/export_torch.py

Writes `tests/conformance/real/models/<name>.onnx` (checked in, so that CI needs no torch) for each
architecture below, twice: `<arch>_script` by the TorchScript exporter (`torch.onnx.export(...,
dynamo=False)`) and `<arch>_dynamo` by the dynamo exporter (`dynamo=True`, onnxscript). Every model is
small (random weights from a fixed seed, small widths) and has symbolic input dims: batch and height/width
for the CNNs, batch and sequence for the transformers, batch and samples for the speech model. Then
onnxruntime's quantizer makes `<model>_qdyn` (`quantize_dynamic`), `<model>_qdq` (`quantize_static`,
QuantFormat.QDQ) and `<model>_qop` (`quantize_static`, QuantFormat.QOperator) of some of them, calibrated
on seeded random inputs.

Architectures (built from torch.nn, no downloaded weights):

- `resnet`: a ResNet-18-like CNN (7x7/2 stem, 3x3/2 maxpool, basic blocks with strided 3x3 convs and 1x1/2
  downsample shortcuts, global average pool, linear head);
- `fpn_det`: a PP-OCR DB-like text detector (strided backbone, FPN with `F.interpolate(scale_factor=2)`
  upsampling and top-down Adds, concatenated upsampled maps, ConvTranspose head, sigmoid);
- `mobilenet`: a MobileNetV3-like CNN (depthwise-separable inverted residuals, hardswish, squeeze-and-
  excitation: a [N, C, 1, 1] gate multiplied into [N, C, H, W]);
- `bert`: a BERT-like encoder (word + position + token-type embeddings, the position ids sliced
  `[:, :seq]` from a buffer, an additive attention mask [N, 1, 1, S] broadcast over the scores);
- `gpt2`: a GPT-2-like decoder (causal mask sliced from a tril buffer, tanh-GELU, tied head);
- `hf_bert`, `hf_gpt2`: transformers' BertModel and GPT2LMHeadModel (pinned transformers, small random
  configs, eager attention), as the exporters see the library's own code;
- `speech`: a wav2vec-like front end (reflection Pad of the waveform, strided Conv1d stack, LayerNorm,
  a positional depthwise conv added back, linear head);
- `unet`: diffusers' UNet2DConditionModel (a tiny random config: two blocks, one with cross-attention
  on the encoder states, timestep embedding, skip Concats in the up path), dynamo only;
- `hf_wav2vec2`: transformers' Wav2Vec2Model (small random config: group-normed conv feature
  extractor, weight-normed positional conv, eager attention), TorchScript only;
- `hf_swin`: transformers' SwinModel (small random config: 4x4 patches, 4x4 windows, shifted windows,
  patch merging), TorchScript only. The trace keeps the window padding of the example size (none): the
  export runs only for heights and widths that are multiples of 32.

Besides, `yolov8_ultralytics`: ultralytics' YOLOv8n detection model built from its yaml (no weights
downloaded; widths scaled down to 1/16, 3 classes, random weights from the seed) and exported by
ultralytics itself (`model.export(format="onnx", dynamic=True)`: TorchScript, onnxslim), the way its
users export it.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from torch import nn

HERE = Path(__file__).resolve().parent
OUT = HERE / "models"
SEED = 20251124
OPSET_SCRIPT = 17
OPSET_DYNAMO = 18


# ---------------------------------------------------------------------------------------------------------
# CNNs


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class ResNet(nn.Module):
    def __init__(self, widths: tuple[int, ...] = (16, 24, 32, 48), classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, widths[0], 7, 2, 3, bias=False), nn.BatchNorm2d(widths[0]), nn.ReLU(), nn.MaxPool2d(3, 2, 1)
        )
        layers, cin = [], widths[0]
        for i, w in enumerate(widths):
            layers += [BasicBlock(cin, w, 1 if i == 0 else 2), BasicBlock(w, w, 1)]
            cin = w
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.layers(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))


def conv_bn_act(cin: int, cout: int, k: int, s: int, groups: int = 1, act: type[nn.Module] = nn.ReLU) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout), act())


class FpnDet(nn.Module):
    """DB-like: backbone strides 4, 8, 16, 32; FPN top-down with 2x nearest upsampling and Adds; the four
    maps upsampled to stride 4 and concatenated; head: conv, two 2x ConvTranspose, sigmoid."""

    def __init__(self, widths: tuple[int, ...] = (16, 24, 32, 48), inner: int = 24) -> None:
        super().__init__()
        self.stem = conv_bn_act(3, widths[0], 3, 2)
        stages, cin = [], widths[0]
        for w in widths:
            stages.append(nn.Sequential(conv_bn_act(cin, w, 3, 2), conv_bn_act(w, w, 3, 1)))
            cin = w
        self.stages = nn.ModuleList(stages)
        self.lateral = nn.ModuleList(nn.Conv2d(w, inner, 1, bias=False) for w in widths)
        self.smooth = nn.ModuleList(nn.Conv2d(inner, inner // 4, 3, padding=1, bias=False) for _ in widths)
        self.head = nn.Sequential(
            conv_bn_act(inner, inner // 4, 3, 1),
            nn.ConvTranspose2d(inner // 4, inner // 4, 2, 2),
            nn.BatchNorm2d(inner // 4),
            nn.ReLU(),
            nn.ConvTranspose2d(inner // 4, 1, 2, 2),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        feats, y = [], self.stem(x)
        for stage in self.stages:
            y = stage(y)
            feats.append(y)
        c2, c3, c4, c5 = (lat(f) for lat, f in zip(self.lateral, feats))
        p4 = c4 + F.interpolate(c5, scale_factor=2.0, mode="nearest")
        p3 = c3 + F.interpolate(p4, scale_factor=2.0, mode="nearest")
        p2 = c2 + F.interpolate(p3, scale_factor=2.0, mode="nearest")
        maps = [self.smooth[0](p2)]
        for k, p in enumerate((p3, p4, c5), start=1):
            maps.append(F.interpolate(self.smooth[k](p), scale_factor=float(2**k), mode="nearest"))
        return torch.sigmoid(self.head(torch.cat(maps, dim=1)))


class SqueezeExcite(nn.Module):
    def __init__(self, c: int) -> None:
        super().__init__()
        self.fc1 = nn.Conv2d(c, max(8, c // 4), 1)
        self.fc2 = nn.Conv2d(max(8, c // 4), c, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = F.adaptive_avg_pool2d(x, 1)
        return x * F.hardsigmoid(self.fc2(F.relu(self.fc1(s))))


class InvertedResidual(nn.Module):
    def __init__(self, cin: int, cout: int, expand: int, stride: int, se: bool) -> None:
        super().__init__()
        mid = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.body = nn.Sequential(
            conv_bn_act(cin, mid, 1, 1, act=nn.Hardswish),
            conv_bn_act(mid, mid, 3, stride, groups=mid, act=nn.Hardswish),
            SqueezeExcite(mid) if se else nn.Identity(),
            nn.Conv2d(mid, cout, 1, bias=False),
            nn.BatchNorm2d(cout),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.body(x)
        return x + y if self.use_res else y


class MobileNet(nn.Module):
    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        cfg = [(16, 16, 1, 2, True), (16, 24, 4, 2, False), (24, 24, 3, 1, False), (24, 40, 3, 2, True),
               (40, 40, 3, 1, True), (40, 48, 3, 2, True), (48, 48, 3, 1, True)]
        self.stem = conv_bn_act(3, 16, 3, 2, act=nn.Hardswish)
        self.blocks = nn.Sequential(*(InvertedResidual(*c) for c in cfg))
        self.last = conv_bn_act(48, 96, 1, 1, act=nn.Hardswish)
        self.head = nn.Sequential(nn.Linear(96, 64), nn.Hardswish(), nn.Linear(64, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.last(self.blocks(self.stem(x)))
        return self.head(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))


# ---------------------------------------------------------------------------------------------------------
# Transformers


class SelfAttention(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads, self.dk = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (t.view(b, s, self.heads, self.dk).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.dk) + bias
        y = torch.softmax(scores, dim=-1) @ v
        return self.out(y.transpose(1, 2).reshape(b, s, d))


class Bert(nn.Module):
    def __init__(self, vocab: int = 100, d: int = 32, heads: int = 2, layers: int = 2, max_pos: int = 64) -> None:
        super().__init__()
        self.word = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_pos, d)
        self.token_type = nn.Embedding(2, d)
        self.register_buffer("position_ids", torch.arange(max_pos).unsqueeze(0), persistent=False)
        self.ln = nn.LayerNorm(d)
        self.attn = nn.ModuleList(SelfAttention(d, heads) for _ in range(layers))
        self.ln1 = nn.ModuleList(nn.LayerNorm(d) for _ in range(layers))
        self.ff = nn.ModuleList(nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d)) for _ in range(layers))
        self.ln2 = nn.ModuleList(nn.LayerNorm(d) for _ in range(layers))
        self.pool = nn.Linear(d, d)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        seq = input_ids.shape[1]
        pos = self.position_ids[:, :seq]
        x = self.ln(self.word(input_ids) + self.pos(pos) + self.token_type(torch.zeros_like(input_ids)))
        bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for attn, ln1, ff, ln2 in zip(self.attn, self.ln1, self.ff, self.ln2):
            x = ln1(x + attn(x, bias))
            x = ln2(x + ff(x))
        return x, torch.tanh(self.pool(x[:, 0]))


class Gpt2(nn.Module):
    def __init__(self, vocab: int = 100, d: int = 32, heads: int = 2, layers: int = 2, max_pos: int = 64) -> None:
        super().__init__()
        self.heads, self.dk = heads, d // heads
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(max_pos, d)
        self.register_buffer("causal", torch.tril(torch.ones(max_pos, max_pos)).view(1, 1, max_pos, max_pos), persistent=False)
        self.ln1 = nn.ModuleList(nn.LayerNorm(d) for _ in range(layers))
        self.c_attn = nn.ModuleList(nn.Linear(d, 3 * d) for _ in range(layers))
        self.c_proj = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        self.ln2 = nn.ModuleList(nn.LayerNorm(d) for _ in range(layers))
        self.mlp = nn.ModuleList(
            nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d)) for _ in range(layers)
        )
        self.ln_f = nn.LayerNorm(d)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        b, s = input_ids.shape
        pos = torch.arange(s, device=input_ids.device).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(pos)
        mask = self.causal[:, :, :s, :s]
        for ln1, c_attn, c_proj, ln2, mlp in zip(self.ln1, self.c_attn, self.c_proj, self.ln2, self.mlp):
            h = ln1(x)
            q, k, v = c_attn(h).split(h.shape[-1], dim=-1)
            q, k, v = (t.view(b, s, self.heads, self.dk).transpose(1, 2) for t in (q, k, v))
            w = q @ k.transpose(-1, -2) / math.sqrt(self.dk)
            w = torch.where(mask == 0, torch.tensor(-1e4, dtype=w.dtype), w)
            a = torch.softmax(w, dim=-1) @ v
            x = x + c_proj(a.transpose(1, 2).reshape(b, s, -1))
            x = x + mlp(ln2(x))
        return self.ln_f(x) @ self.wte.weight.t()


class Speech(nn.Module):
    """wav2vec-like: [batch, samples] -> reflection-padded conv stack -> LayerNorm -> positional conv -> head."""

    def __init__(self, d: int = 32, classes: int = 8) -> None:
        super().__init__()
        self.pad = nn.ReflectionPad1d(40)
        self.convs = nn.ModuleList(
            [nn.Conv1d(1, d, 80, 16), nn.Conv1d(d, d, 3, 2), nn.Conv1d(d, d, 3, 2), nn.Conv1d(d, d, 2, 2)]
        )
        self.ln = nn.LayerNorm(d)
        self.pos_conv = nn.Conv1d(d, d, 9, padding=4, groups=4)
        self.proj = nn.Linear(d, classes)

    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        x = self.pad(wave.unsqueeze(1))
        for conv in self.convs:
            x = F.gelu(conv(x))
        x = self.ln(x.transpose(1, 2))
        x = x + F.gelu(self.pos_conv(x.transpose(1, 2))).transpose(1, 2)
        return self.proj(x)


class HfBert(nn.Module):
    """transformers' BertModel (pinned transformers, a small random config, eager attention: the extended
    attention mask, the position ids sliced from the registered buffer) behind keyword arguments."""

    def __init__(self) -> None:
        super().__init__()
        from transformers import BertConfig, BertModel

        config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                            intermediate_size=64, max_position_embeddings=64, attn_implementation="eager")
        self.model = BertModel(config)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, return_dict=True)
        return out.last_hidden_state, out.pooler_output


class HfGpt2(nn.Module):
    """transformers' GPT2LMHeadModel (small random config, eager attention, tanh-GELU, no KV cache)."""

    def __init__(self) -> None:
        super().__init__()
        from transformers import GPT2Config, GPT2LMHeadModel

        config = GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=2, n_positions=64,
                            attn_implementation="eager", use_cache=False)
        self.model = GPT2LMHeadModel(config)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False, return_dict=True).logits


class HfVit(nn.Module):
    """transformers' ViTModel (small random config, 32x32 images in 8x8 patches, eager attention)."""

    def __init__(self) -> None:
        super().__init__()
        from transformers import ViTConfig, ViTModel

        config = ViTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                           image_size=32, patch_size=8, attn_implementation="eager")
        self.model = ViTModel(config)

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        return self.model(pixel_values=pixel_values, return_dict=True).last_hidden_state


class HfLlama(nn.Module):
    """transformers' LlamaForCausalLM (small random config: RMSNorm, rotary embeddings, grouped-query
    attention with 4 query and 2 key/value heads, SwiGLU, no KV cache)."""

    def __init__(self) -> None:
        super().__init__()
        from transformers import LlamaConfig, LlamaForCausalLM

        config = LlamaConfig(vocab_size=100, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                             attn_implementation="eager", use_cache=False)
        self.model = LlamaForCausalLM(config)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False, return_dict=True).logits


class Unet(nn.Module):
    """diffusers' UNet2DConditionModel (tiny random config) behind positional arguments."""

    def __init__(self) -> None:
        super().__init__()
        from diffusers import UNet2DConditionModel

        self.model = UNet2DConditionModel(
            sample_size=16, in_channels=4, out_channels=4, layers_per_block=1, block_out_channels=(8, 16),
            down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
            cross_attention_dim=8, attention_head_dim=4, norm_num_groups=4,
        )

    def forward(self, sample: torch.Tensor, timestep: torch.Tensor, encoder_hidden_states: torch.Tensor) -> torch.Tensor:
        return self.model(sample, timestep, encoder_hidden_states, return_dict=False)[0]


class HfWav2Vec2(nn.Module):
    """transformers' Wav2Vec2Model (small random config, eager attention)."""

    def __init__(self) -> None:
        super().__init__()
        from transformers import Wav2Vec2Config, Wav2Vec2Model

        config = Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                                conv_dim=(32, 32, 32), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3),
                                num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2, vocab_size=32,
                                attn_implementation="eager")
        self.model = Wav2Vec2Model(config)

    def forward(self, input_values: torch.Tensor) -> torch.Tensor:
        return self.model(input_values=input_values, return_dict=True).last_hidden_state


class HfSwin(nn.Module):
    """transformers' SwinModel (small random config: 32x32 images, 4x4 patches, 4x4 windows, 2 stages)."""

    def __init__(self) -> None:
        super().__init__()
        from transformers import SwinConfig, SwinModel

        config = SwinConfig(image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[1, 2], window_size=4,
                            mlp_ratio=2.0, attn_implementation="eager")
        self.model = SwinModel(config)

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        return self.model(pixel_values=pixel_values, return_dict=True).last_hidden_state


# ---------------------------------------------------------------------------------------------------------
# Export


def image(shape: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    return (torch.randn(*shape),)


ARCHS = {
    # name: (constructor, example inputs, input names, output names, dynamic axes {input: {axis: name}})
    "resnet": (ResNet, lambda: image((2, 3, 64, 96)), ["image"], ["logits"],
               {"image": {0: "batch", 2: "height", 3: "width"}}),
    "fpn_det": (FpnDet, lambda: image((1, 3, 64, 96)), ["image"], ["prob_map"],
                {"image": {0: "batch", 2: "height", 3: "width"}}),
    "mobilenet": (MobileNet, lambda: image((2, 3, 64, 96)), ["image"], ["logits"],
                  {"image": {0: "batch", 2: "height", 3: "width"}}),
    "bert": (Bert, lambda: (torch.randint(0, 100, (2, 7)), torch.ones(2, 7, dtype=torch.int64)),
             ["input_ids", "attention_mask"], ["last_hidden_state", "pooler_output"],
             {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}),
    "gpt2": (Gpt2, lambda: (torch.randint(0, 100, (2, 7)),), ["input_ids"], ["logits"],
             {"input_ids": {0: "batch", 1: "sequence"}}),
    "hf_bert": (HfBert, lambda: (torch.randint(0, 100, (2, 7)), torch.ones(2, 7, dtype=torch.int64)),
                ["input_ids", "attention_mask"], ["last_hidden_state", "pooler_output"],
                {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}),
    "hf_gpt2": (HfGpt2, lambda: (torch.randint(0, 100, (2, 7)),), ["input_ids"], ["logits"],
                {"input_ids": {0: "batch", 1: "sequence"}}),
    "hf_vit": (HfVit, lambda: image((2, 3, 32, 32)), ["pixel_values"], ["last_hidden_state"],
               {"pixel_values": {0: "batch"}}),
    "hf_llama": (HfLlama, lambda: (torch.randint(0, 100, (2, 7)),), ["input_ids"], ["logits"],
                 {"input_ids": {0: "batch", 1: "sequence"}}),
    "speech": (Speech, lambda: (torch.randn(2, 1600),), ["wave"], ["logits"], {"wave": {0: "batch", 1: "samples"}}),
    "unet": (Unet, lambda: (torch.randn(2, 4, 16, 24), torch.tensor([10.0, 20.0]), torch.randn(2, 7, 8)),
             ["sample", "timestep", "encoder_hidden_states"], ["out_sample"],
             {"sample": {0: "batch", 2: "height", 3: "width"}, "timestep": {0: "batch"},
              "encoder_hidden_states": {0: "batch", 1: "sequence"}}),
    "hf_wav2vec2": (HfWav2Vec2, lambda: (torch.randn(2, 1600),), ["input_values"], ["last_hidden_state"],
                    {"input_values": {0: "batch", 1: "samples"}}),
    "hf_swin": (HfSwin, lambda: image((2, 3, 32, 32)), ["pixel_values"], ["last_hidden_state"],
                {"pixel_values": {0: "batch", 2: "height", 3: "width"}}),
}


# Architectures the TorchScript exporter cannot export, and why.
DYNAMO_ONLY = {
    "hf_gpt2": "transformers' causal mask uses aten::diff, which it does not support",
    "hf_llama": "transformers' causal mask uses aten::diff, which it does not support",
    "unet": "one exporter for diffusers' UNet, the one its ONNX exports move to",
}
# Architectures exported by TorchScript only, and why.
SCRIPT_ONLY = {
    "hf_wav2vec2": "one exporter, the one most published wav2vec2 exports were made with",
    "hf_swin": "one exporter, the one most published Swin exports were made with",
}


def export(arch: str, dynamo: bool) -> Path:
    ctor, example, in_names, out_names, axes = ARCHS[arch]
    torch.manual_seed(SEED)
    model = ctor().eval()
    # BatchNorm statistics that are not the identity, so the folded constants are not trivial.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    args = example()
    path = OUT / f"{arch}_{'dynamo' if dynamo else 'script'}.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            # In forward()'s argument order; AUTO lets torch.export find the relations (a size that must
            # be even, a dim shared by two inputs) instead of failing on them.
            dims = tuple({a: torch.export.Dim.AUTO for a in axes.get(name, {})} for name in in_names)
            program = torch.onnx.export(
                model, args, input_names=in_names, output_names=out_names, dynamic_shapes=dims,
                dynamo=True, opset_version=OPSET_DYNAMO, external_data=False, verbose=False,
            )
            program.save(str(path), external_data=False)
            rename_dims(path, in_names, axes)
        else:
            torch.onnx.export(
                model, args, str(path), input_names=in_names, output_names=out_names, dynamic_axes=axes,
                dynamo=False, opset_version=OPSET_SCRIPT, do_constant_folding=True,
            )
    m = onnx.load(str(path))
    onnx.checker.check_model(m, full_check=True)
    return path


def rename_dims(path: Path, in_names: list[str], axes: dict[str, dict[int, str]]) -> None:
    """Drops the nodes' stack traces (see below). The dynamo exporter names the dims after torch's symbols (s0, s77...): rename them, everywhere in the
    model (inputs, outputs, value_info), to the names the TorchScript export uses, so both read alike. A
    derived expression such as `s0//2` keeps its form with the symbol renamed."""
    import re

    m = onnx.load(str(path))
    # Each node's `pkg.torch.onnx.stack_trace` names this script by its absolute path and line numbers:
    # dropped, so that the export does not depend on where the repository is or on edits elsewhere in
    # this file (the other metadata, the module path of each node, is kept).
    for node in m.graph.node:
        kept = [p for p in node.metadata_props if p.key != "pkg.torch.onnx.stack_trace"]
        del node.metadata_props[:]
        node.metadata_props.extend(kept)
    mapping: dict[str, str] = {}
    for vi in m.graph.input:
        for axis, name in axes.get(vi.name, {}).items():
            d = vi.type.tensor_type.shape.dim[axis]
            if d.dim_param and d.dim_param not in mapping:
                mapping[d.dim_param] = name
    if not mapping:
        onnx.save(m, str(path))
        return
    pattern = re.compile(r"\b(" + "|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True)) + r")\b")
    for vi in [*m.graph.input, *m.graph.output, *m.graph.value_info]:
        if vi.type.WhichOneof("value") != "tensor_type":
            continue
        for d in vi.type.tensor_type.shape.dim:
            if d.dim_param:
                d.dim_param = pattern.sub(lambda g: mapping[g.group(1)], d.dim_param)
    onnx.save(m, str(path))


# ---------------------------------------------------------------------------------------------------------
# Quantized variants (onnxruntime.quantization)

QUANTIZED = {
    # source model: modes
    "resnet_script": ("qdq", "qop"),
    "mobilenet_dynamo": ("qdq",),
    "fpn_det_script": ("qdq",),
    "bert_script": ("qdyn",),
    "gpt2_dynamo": ("qdyn",),
    "speech_script": ("qdyn",),
    "hf_bert_script": ("qdyn",),
    "mobilenet_script": ("qop",),
    "fpn_det_script": ("qop",),
    "hf_bert_script_ortopt": ("qdyn",),
}
CALIBRATION = {"resnet": (1, 3, 64, 96), "mobilenet": (1, 3, 64, 96), "fpn_det": (1, 3, 64, 96)}


class Calibration:
    """Seeded random images for quantize_static."""

    def __init__(self, name: str, shape: tuple[int, ...], count: int = 4) -> None:
        rng = np.random.default_rng(SEED)
        self.data = [{name: rng.standard_normal(shape).astype(np.float32)} for _ in range(count)]

    def get_next(self):  # noqa: ANN201 - onnxruntime's CalibrationDataReader protocol
        return self.data.pop(0) if self.data else None

    def rewind(self) -> None:  # pragma: no cover - not used by the MinMax calibrator
        pass


def quantize(source: str, mode: str) -> Path:
    src = OUT / f"{source}.onnx"
    dest = OUT / f"{source}_{mode}.onnx"
    pre = OUT / f".{source}.pre.onnx"
    # symbolic_shape_infer, when it gives up, saves `sym_shape_infer_temp.onnx` and a .data file into the
    # current folder: let that be a temporary one.
    with tempfile.TemporaryDirectory(prefix="export_torch-") as tmp:
        here = os.getcwd()
        os.chdir(tmp)
        try:
            quantize_in(src, dest, pre, source, mode)
        finally:
            os.chdir(here)
    return dest


def quantize_in(src: Path, dest: Path, pre: Path, source: str, mode: str) -> None:
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_dynamic, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    try:
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=False)
    except Exception as e:  # noqa: BLE001 - symbolic_shape_infer gives up on some exports (fpn_det_script)
        print(f"export_torch: {source}: quant_pre_process without symbolic shape inference ({e})")
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
    try:
        if mode == "qdyn":
            # onnx's inference gives no types past the contrib operators of an optimized model: the
            # quantizer needs the default.
            extra = {"DefaultTensorType": onnx.TensorProto.FLOAT} if "_ortopt" in source else {}
            quantize_dynamic(str(pre), str(dest), weight_type=QuantType.QInt8, extra_options=extra)
        else:
            arch = arch_of(source)
            name = onnx.load(str(src)).graph.input[0].name
            fmt = QuantFormat.QDQ if mode == "qdq" else QuantFormat.QOperator
            quantize_static(
                str(pre), str(dest), Calibration(name, CALIBRATION[arch]), quant_format=fmt,
                activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, per_channel=(mode == "qdq"),
            )
    finally:
        pre.unlink(missing_ok=True)
    onnx.checker.check_model(onnx.load(str(dest)))


def arch_of(model: str) -> str:
    """The architecture a corpus model was made from: `hf_bert_script_ortopt` -> `hf_bert`."""
    for tag in ("_script", "_dynamo", "_genai"):
        if tag in model:
            return model.split(tag)[0]
    return model


# ---------------------------------------------------------------------------------------------------------
# onnxruntime's transformer optimizer (onnxruntime.transformers.optimizer): the fusions into its contrib
# operators (Attention, EmbedLayerNormalization, SkipLayerNormalization, BiasGelu, FastGelu,
# SkipSimplifiedLayerNormalization...) that most transformer deployments with onnxruntime go through.

OPTIMIZED = {
    # source model: (model_type, num_heads, hidden_size)
    "bert_script": ("bert", 2, 32),
    "bert_dynamo": ("bert", 2, 32),
    "hf_bert_script": ("bert", 2, 32),
    "gpt2_script": ("gpt2", 2, 32),
    "hf_vit_script": ("vit", 2, 32),
    "hf_llama_dynamo": ("gpt2", 4, 32),
}


def optimize(source: str) -> Path:
    from onnxruntime.transformers.optimizer import optimize_model

    model_type, heads, hidden = OPTIMIZED[source]
    dest = OUT / f"{source}_ortopt.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        optimized = optimize_model(str(OUT / f"{source}.onnx"), model_type=model_type, num_heads=heads,
                                   hidden_size=hidden, opt_level=1)
    optimized.save_model_to_file(str(dest))
    loads_in_ort(dest)
    return dest


def loads_in_ort(path: Path) -> None:
    """onnx's checker does not know the contrib operators onnxruntime registers in the default domain
    (SimplifiedLayerNormalization): onnxruntime loading the model is the check."""
    import onnxruntime

    onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])


# ---------------------------------------------------------------------------------------------------------
# onnxruntime-genai's model builder (onnxruntime_genai.models.builder): a Llama as it ships for generation,
# with a KV cache, GroupQueryAttention, SkipSimplifiedLayerNormalization and, in int4, MatMulNBits.

GENAI = ("fp32", "int4")


def build_genai(precision: str) -> Path:
    import subprocess

    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    dest = OUT / f"llama_genai_{precision}.onnx"
    with tempfile.TemporaryDirectory(prefix="export_torch-genai-") as tmp:
        hf, out = Path(tmp) / "hf", Path(tmp) / "out"
        torch.manual_seed(SEED)
        config = LlamaConfig(vocab_size=100, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
        LlamaForCausalLM(config).save_pretrained(str(hf))
        # The builder saves the tokenizer beside the model: a word-level one of the same vocabulary.
        words = Tokenizer(models.WordLevel({f"t{i}": i for i in range(100)}, unk_token="t0"))
        words.pre_tokenizer = pre_tokenizers.Whitespace()
        PreTrainedTokenizerFast(tokenizer_object=words, unk_token="t0", bos_token="t1",
                                eos_token="t2").save_pretrained(str(hf))
        subprocess.run([sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", str(hf), "-o", str(out),
                        "-p", precision, "-e", "cpu"], check=True, capture_output=True)
        # The weights inline (the models are small), so that the corpus has one file per model.
        m = onnx.load(str(out / "model.onnx"))
        onnx.save(m, str(dest), save_as_external_data=False)
    loads_in_ort(dest)
    return dest


# ---------------------------------------------------------------------------------------------------------
# ultralytics: YOLOv8n from its yaml, exported by ultralytics (TorchScript exporter, then onnxslim).

YOLO_SCALE = [0.33, 0.0625, 256]  # depth, width, max channels: YOLOv8n's depth, 1/4 of its width
YOLO_CLASSES = 3


def export_yolo() -> Path:
    import yaml

    os.environ["YOLO_OFFLINE"] = "1"  # no update check, no hub
    import ultralytics
    from ultralytics import YOLO

    dest = OUT / "yolov8_ultralytics.onnx"
    cfg = yaml.safe_load((Path(ultralytics.__file__).parent / "cfg/models/v8/yolov8.yaml").read_text())
    cfg["nc"] = YOLO_CLASSES
    cfg["scales"] = {"n": YOLO_SCALE}
    with tempfile.TemporaryDirectory(prefix="export_torch-yolo-") as tmp:
        here = os.getcwd()
        os.chdir(tmp)  # ultralytics writes the export beside the yaml
        try:
            Path("yolov8n.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))  # the scale comes from the name
            torch.manual_seed(SEED)
            model = YOLO("yolov8n.yaml", task="detect")
            out = model.export(format="onnx", dynamic=True, imgsz=64)
            m = onnx.load(out)
        finally:
            os.chdir(here)
    # The export's date, for a reproducible file.
    kept = [p for p in m.metadata_props if p.key != "date"]
    del m.metadata_props[:]
    m.metadata_props.extend(kept)
    onnx.save(m, str(dest))
    onnx.checker.check_model(onnx.load(str(dest)), full_check=True)
    loads_in_ort(dest)
    return dest


def main() -> int:
    if os.environ.get("PYTHONHASHSEED") != "0":
        # onnxslim (in the ultralytics export) iterates sets of strings: the value_info it writes (duplicate
        # entries, with conflicting shapes) varies with Python's string hashing. One seed, the same bytes.
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated architecture names (default: all)")
    parser.add_argument("--no-quantize", action="store_true", help="only the torch exports")
    parser.add_argument("--no-export", action="store_true", help="only the quantized variants (of existing exports)")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    archs = args.only.split(",") if args.only else [*ARCHS, "yolov8_ultralytics"]
    for arch in [] if args.no_export else [a for a in archs if a in ARCHS]:
        for dynamo in (False, True):
            if not dynamo and arch in DYNAMO_ONLY:
                print(f"export_torch: {arch}: no TorchScript export ({DYNAMO_ONLY[arch]})")
                continue
            if dynamo and arch in SCRIPT_ONLY:
                print(f"export_torch: {arch}: no dynamo export ({SCRIPT_ONLY[arch]})")
                continue
            path = export(arch, dynamo)
            print(f"export_torch: {path.relative_to(HERE)} ({path.stat().st_size} bytes)")
    for source in OPTIMIZED:
        if arch_of(source) in archs:
            path = optimize(source)
            print(f"export_torch: {path.relative_to(HERE)} ({path.stat().st_size} bytes)")
    if not args.no_quantize:
        for source, modes in QUANTIZED.items():
            if arch_of(source) not in archs:
                continue
            for mode in modes:
                path = quantize(source, mode)
                print(f"export_torch: {path.relative_to(HERE)} ({path.stat().st_size} bytes)")
    if "yolov8_ultralytics" in archs:
        path = export_yolo()
        print(f"export_torch: {path.relative_to(HERE)} ({path.stat().st_size} bytes)")
    if "hf_llama" in archs:
        for precision in GENAI:
            path = build_genai(precision)
            print(f"export_torch: {path.relative_to(HERE)} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
