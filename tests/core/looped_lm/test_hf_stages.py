"""Stage metrics on a local Hugging Face causal LM: tiny GPT-2 and Llama models saved to a temporary
directory with a word-level tokenizer (nothing is downloaded), checked against a recomputation by hand."""

import numpy as np
import pytest
import torch

from core.looped_lm.hf_stages import SAMPLE_TEXT, causal_lm_profile, final_norm, load_causal_lm


def save_tiny(directory, kind: str):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast
    from transformers.models.gpt2.modeling_gpt2 import GPT2Config, GPT2LMHeadModel
    from transformers.models.llama.modeling_llama import LlamaConfig, LlamaForCausalLM

    words = sorted(set(SAMPLE_TEXT.replace(".", " . ").replace(",", " , ").split()))
    vocab = {w: i for i, w in enumerate(["[UNK]", "[PAD]", "[EOS]", *words])}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", eos_token="[EOS]")
    torch.manual_seed(0)
    if kind == "gpt2":
        model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=128, n_embd=32, n_layer=3, n_head=2))
    else:
        model = LlamaForCausalLM(LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64,
                                             num_hidden_layers=3, num_attention_heads=2, num_key_value_heads=2,
                                             max_position_embeddings=128))
    tokenizer.save_pretrained(directory)
    model.save_pretrained(directory)
    return directory


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_profile_matches_a_lens_computed_by_hand(tmp_path, kind):
    lm = load_causal_lm(save_tiny(tmp_path, kind))
    model, tokenizer = lm.model, lm.tokenizer
    profile = causal_lm_profile(model, tokenizer)
    ids = tokenizer(SAMPLE_TEXT, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        out = model(input_ids=ids, output_hidden_states=True)
        norm = model.transformer.ln_f if kind == "gpt2" else model.model.norm
        assert final_norm(model) is norm
        lens = model.lm_head(norm(out.hidden_states[1]))[0, :-1]       # after the first layer
    p = lens.softmax(-1)
    entropy = float(-(p * p.log()).sum(-1).mean())
    final = out.logits[0, :-1].argmax(-1)
    rank = float((lens > lens.gather(-1, ids[0, 1:, None])).sum(-1).float().mean())
    assert profile.depth_labels == ["embedding", "layer 1", "layer 2", "layer 3"]
    assert profile.entropy[1] == pytest.approx(entropy, rel=1e-5)
    assert profile.agreement[1] == pytest.approx(float((lens.argmax(-1) == final).float().mean()))
    assert profile.correct_rank[1] == pytest.approx(rank)
    assert profile.agreement[-1] == 1.0                                 # the last depth is the model's output
    assert ((profile.matrix_entropy > 0) & (profile.matrix_entropy <= 1)).all()
    assert np.isfinite(profile.entropy).all() and (profile.entropy <= np.log(model.config.vocab_size) + 1e-6).all()


def test_bad_directory_and_text_are_named(tmp_path):
    with pytest.raises(ValueError, match="^model_dir: .* holds no config.json; allowed a local directory"):
        load_causal_lm(tmp_path / "nowhere")
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ValueError, match="^model_dir: .* could not be loaded as a causal LM"):
        load_causal_lm(tmp_path)
    lm = load_causal_lm(save_tiny(tmp_path / "gpt2", "gpt2"))
    model, tokenizer = lm.model, lm.tokenizer
    with pytest.raises(ValueError, match="^text: empty"):
        causal_lm_profile(model, tokenizer, "  ")
    with pytest.raises(ValueError, match="^text: 1 token; allowed a text of at least two tokens$"):
        causal_lm_profile(model, tokenizer, "cat")
