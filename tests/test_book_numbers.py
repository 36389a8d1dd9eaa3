"""Golden tests: the tensors printed in chapter 3 (sections 3.3-3.6), to 4 decimals."""
import pytest
import torch
import torch.nn as nn

from attention_core import BOOK_INPUTS, CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper, SelfAttention_v1, SelfAttention_v2, build_seeded, count_parameters
from attention_core.book import stages
from attention_core.lessons import traces as lesson

NEG = float("-inf")


def book(actual, expected):
    """Compare with a tensor printed by the book at 4 decimals."""
    torch.testing.assert_close(actual.detach().cpu().float(), torch.tensor(expected), atol=1e-4, rtol=0)


SCORES_2 = [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]
SOFTMAX_2 = [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]
CONTEXT_2 = [0.4419, 0.6515, 0.5683]
ALL_SCORES = [[0.9995, 0.9544, 0.9422, 0.4753, 0.4576, 0.6310], [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865],
              [0.9422, 1.4754, 1.4570, 0.8296, 0.7154, 1.0605], [0.4753, 0.8434, 0.8296, 0.4937, 0.3474, 0.6565],
              [0.4576, 0.7070, 0.7154, 0.3474, 0.6654, 0.2935], [0.6310, 1.0865, 1.0605, 0.6565, 0.2935, 0.9450]]
ALL_WEIGHTS = [[0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452], [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581],
               [0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565], [0.1435, 0.2074, 0.2046, 0.1462, 0.1263, 0.1720],
               [0.1526, 0.1958, 0.1975, 0.1367, 0.1879, 0.1295], [0.1385, 0.2184, 0.2128, 0.1420, 0.0988, 0.1896]]
ALL_CONTEXT = [[0.4421, 0.5931, 0.5790], [0.4419, 0.6515, 0.5683], [0.4431, 0.6496, 0.5671],
               [0.4304, 0.6298, 0.5510], [0.4671, 0.5910, 0.5266], [0.4177, 0.6503, 0.5645]]
V1_SCORES_2 = [1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440]
V1_WEIGHTS_2 = [0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820]
V1_OUT = [[0.2996, 0.8053], [0.3061, 0.8210], [0.3058, 0.8203], [0.2948, 0.7939], [0.2927, 0.7891], [0.2990, 0.8040]]
V2_OUT = [[-0.0739, 0.0713], [-0.0748, 0.0703], [-0.0749, 0.0702], [-0.0760, 0.0685], [-0.0763, 0.0679],
          [-0.0754, 0.0693]]
V2_WEIGHTS = [[0.1921, 0.1646, 0.1652, 0.1550, 0.1721, 0.1510], [0.2041, 0.1659, 0.1662, 0.1496, 0.1665, 0.1477],
              [0.2036, 0.1659, 0.1662, 0.1498, 0.1664, 0.1480], [0.1869, 0.1667, 0.1668, 0.1571, 0.1661, 0.1564],
              [0.1830, 0.1669, 0.1670, 0.1588, 0.1658, 0.1585], [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]]
MASKED_NORM = [[1.0, 0, 0, 0, 0, 0], [0.5517, 0.4483, 0, 0, 0, 0], [0.3800, 0.3097, 0.3103, 0, 0, 0],
               [0.2758, 0.2460, 0.2462, 0.2319, 0, 0], [0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0],
               [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]]
MASKED_SCORES = [[0.2899, NEG, NEG, NEG, NEG, NEG], [0.4656, 0.1723, NEG, NEG, NEG, NEG],
                 [0.4594, 0.1703, 0.1731, NEG, NEG, NEG], [0.2642, 0.1024, 0.1036, 0.0186, NEG, NEG],
                 [0.2183, 0.0874, 0.0882, 0.0177, 0.0786, NEG], [0.3408, 0.1270, 0.1290, 0.0198, 0.1290, 0.0078]]
DROPPED = [[2.0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0.7599, 0.6194, 0.6206, 0, 0, 0],
           [0, 0.4921, 0.4925, 0, 0, 0], [0, 0.3966, 0, 0.3775, 0, 0], [0, 0.3327, 0.3331, 0.3084, 0.3331, 0]]
CAUSAL_OUT = [[-0.4519, 0.2216], [-0.5874, 0.0058], [-0.6300, -0.0632], [-0.5675, -0.0843], [-0.5526, -0.0981],
              [-0.5299, -0.1081]]
WRAPPER_OUT = [[-0.4519, 0.2216, 0.4772, 0.1063], [-0.5874, 0.0058, 0.5891, 0.3257],
               [-0.6300, -0.0632, 0.6202, 0.3860], [-0.5675, -0.0843, 0.5478, 0.3589],
               [-0.5526, -0.0981, 0.5321, 0.3428], [-0.5299, -0.1081, 0.5077, 0.3493]]
MHA_OUT = [[0.3190, 0.4858], [0.2943, 0.3897], [0.2856, 0.3593], [0.2693, 0.3873], [0.2639, 0.3928],
           [0.2575, 0.4028]]


def _batch():
    return torch.stack((BOOK_INPUTS, BOOK_INPUTS))  # (2, 6, 3)


def _v2_trace():
    torch.manual_seed(789)
    return SelfAttention_v2(3, 2).trace(BOOK_INPUTS)


def test_simplified_attention_query_2():
    query = BOOK_INPUTS[1]
    loop = stages.attn_scores_loop(BOOK_INPUTS, query)
    matrix = stages.attn_scores(BOOK_INPUTS, BOOK_INPUTS)[1]
    book(loop, SCORES_2)
    book(matrix, SCORES_2)
    torch.testing.assert_close(loop, matrix)
    book(stages.normalize_by_sum(loop), [0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656])
    book(stages.softmax_naive(loop), SOFTMAX_2)
    book(stages.softmax(loop), SOFTMAX_2)
    weights = stages.softmax(loop)
    book(stages.context_vector_loop(weights, BOOK_INPUTS), CONTEXT_2)
    book(stages.context_vectors(weights, BOOK_INPUTS), CONTEXT_2)


def test_simplified_attention_all_tokens():
    scores = stages.attn_scores(BOOK_INPUTS, BOOK_INPUTS)
    book(scores, ALL_SCORES)
    book(BOOK_INPUTS @ BOOK_INPUTS.T, ALL_SCORES)
    weights = stages.softmax(scores)
    book(weights, ALL_WEIGHTS)
    book(stages.context_vectors(weights, BOOK_INPUTS), ALL_CONTEXT)


def test_self_attention_v1_trace():
    torch.manual_seed(123)
    record = SelfAttention_v1(3, 2).trace(BOOK_INPUTS)
    book(record["queries"][1], [0.4306, 1.4551])
    assert abs(record["attn_scores"][1, 1].item() - 1.8524) < 1e-4
    book(record["attn_scores"][1], V1_SCORES_2)
    book(record["attn_weights"][1], V1_WEIGHTS_2)
    book(record["context_vec"][1], [0.3061, 0.8210])
    book(record["context_vec"], V1_OUT)


def test_scaling_pitfall_d_k_times_half():
    torch.manual_seed(123)
    scores_2 = SelfAttention_v1(3, 2).trace(BOOK_INPUTS)["attn_scores"][1]
    d_k = 2
    right = torch.softmax(scores_2 / d_k**0.5, dim=-1)
    wrong = torch.softmax(scores_2 / d_k * 0.5, dim=-1)
    book(right, V1_WEIGHTS_2)
    book(stages.softmax(stages.scale_scores(scores_2, d_k)), V1_WEIGHTS_2)
    book(wrong, [0.1623, 0.1877, 0.1858, 0.1547, 0.1358, 0.1738])
    assert (right - wrong).abs().max() > 1e-2


def test_self_attention_v2():
    torch.manual_seed(789)
    book(SelfAttention_v2(3, 2)(BOOK_INPUTS), V2_OUT)
    book(_v2_trace()["attn_weights"], V2_WEIGHTS)


def test_mask_both_variants():
    record = _v2_trace()
    masked_simple, masked_norm = stages.mask_after_softmax(record["attn_weights"])
    book(masked_norm, MASKED_NORM)
    masked = stages.mask_scores(record["attn_scores"])
    book(masked, MASKED_SCORES)
    causal = stages.softmax(stages.scale_scores(masked, 2))
    book(causal, MASKED_NORM)
    assert stages.max_abs_diff(causal, masked_norm) < 1e-6


def test_dropout_mask_matches_nn_dropout():
    torch.manual_seed(123)
    expected = nn.Dropout(0.5)(torch.ones(6, 6))
    torch.testing.assert_close(expected, 2 * stages.dropout_keep_mask((6, 6), 0.5, 123))


def test_dropout_on_causal_weights():
    record = _v2_trace()
    causal = stages.softmax(stages.scale_scores(stages.mask_scores(record["attn_scores"]), 2)).detach()
    dropped, keep = stages.dropout(causal, 0.5, 123)
    book(dropped, DROPPED)
    torch.manual_seed(123)
    torch.testing.assert_close(dropped, nn.Dropout(0.5)(causal))
    assert set(keep.unique().tolist()) <= {0.0, 1.0}


@pytest.mark.parametrize("cls, kwargs, expected", [
    (CausalAttention, {}, CAUSAL_OUT),
    (MultiHeadAttentionWrapper, {"num_heads": 2}, WRAPPER_OUT),
    (MultiHeadAttention, {"num_heads": 2}, MHA_OUT),
], ids=["CausalAttention", "MultiHeadAttentionWrapper", "MultiHeadAttention"])
def test_batched_classes(cls, kwargs, expected):
    torch.manual_seed(123)
    out = cls(3, 2, 6, 0.0, **kwargs)(_batch())
    assert out.shape == (2, 6, len(expected[0]))
    book(out[0], expected)
    book(out[1], expected)


def test_batched_matmul_example():
    a = torch.tensor([[[[0.2745, 0.6584, 0.2775, 0.8573], [0.8993, 0.0390, 0.9268, 0.7388],
                        [0.7179, 0.7058, 0.9156, 0.4340]],
                       [[0.0772, 0.3565, 0.1479, 0.5331], [0.4066, 0.2318, 0.4545, 0.9737],
                        [0.4606, 0.5159, 0.4220, 0.5786]]]])
    book(stages.attn_scores(a, a), [[[[1.3208, 1.1631, 1.2879], [1.1631, 2.2150, 1.8424], [1.2879, 1.8424, 2.0402]],
                                     [[0.4391, 0.7003, 0.5903], [0.7003, 1.3737, 1.0620], [0.5903, 1.0620, 0.9912]]]])


def test_exercise_3_3_gpt2_sized_mha():
    torch.manual_seed(123)
    mha = MultiHeadAttention(768, 768, 1024, 0.0, num_heads=12)
    assert count_parameters(mha) == 2_360_064
    assert lesson.mha_parameter_count(768, 768, 12) == 2_360_064
    with torch.no_grad():
        out = mha(torch.rand(1, 1024, 768))
    assert out.shape == (1, 1024, 768)


def test_exercise_3_1_v1_v2_weight_transfer():
    torch.manual_seed(789)
    v2 = SelfAttention_v2(3, 2)
    v1 = SelfAttention_v1(3, 2)
    with torch.no_grad():
        v1.W_query.copy_(v2.W_query.weight.T)
        v1.W_key.copy_(v2.W_key.weight.T)
        v1.W_value.copy_(v2.W_value.weight.T)
    torch.testing.assert_close(v1(BOOK_INPUTS), v2(BOOK_INPUTS))
    book(v1(BOOK_INPUTS), V2_OUT)


def test_build_seeded_matches_global_seed_and_restores_rng():
    torch.manual_seed(789)
    expected = SelfAttention_v2(3, 2)(BOOK_INPUTS)
    torch.manual_seed(2024)
    before = torch.get_rng_state()
    module = build_seeded(SelfAttention_v2, 789, 3, 2)
    after = torch.get_rng_state()
    assert torch.equal(before, after)
    torch.testing.assert_close(module(BOOK_INPUTS), expected)


def test_projection_trace_simplified_and_v1():
    record, used, note = lesson.projection_trace(BOOK_INPUTS, "none", 2, 0, "cpu")
    assert used == "cpu" and note is None
    book(record["attn_scores"], ALL_SCORES)
    book(record["attn_weights"], ALL_WEIGHTS)
    book(record["context_vec"], ALL_CONTEXT)
    record, used, note = lesson.projection_trace(BOOK_INPUTS, "v1", 2, 123, "cpu")
    book(record["queries"][1], [0.4306, 1.4551])
    book(record["attn_scores"][1], V1_SCORES_2)
    book(record["attn_weights"][1], V1_WEIGHTS_2)
    book(record["context_vec"], V1_OUT)


def test_heads_trace():
    result = lesson.heads_trace(BOOK_INPUTS, 2, 2, 123, 6, "cpu")
    book(result["mha"]["context_vec"][0, 0], [0.3190, 0.4858])
    book(result["mha"]["context_vec"][0], MHA_OUT)
    book(result["wrapper"]["context_vec"][0, 0], [-0.4519, 0.2216, 0.4772, 0.1063])
    book(result["wrapper"]["context_vec"][0], WRAPPER_OUT)
    assert result["device"] == "cpu"


def test_heads_trace_joins_every_head_of_the_wrapper():
    # heads_trace traces only the first head and runs the others' forward (memory): the joined output must
    # still be the whole wrapper's, bit for bit, at a size with more heads than the book's two.
    x = torch.randn(40, 16, generator=torch.Generator().manual_seed(0))  # (T, d_in)
    result = lesson.heads_trace(x, 12, 3, 123, 40, "cpu")
    wrapper = build_seeded(MultiHeadAttentionWrapper, 123, 16, 12, 40, 0.0, 3)
    with torch.no_grad():
        full = wrapper.trace(x.unsqueeze(0))
    assert torch.equal(result["wrapper"]["context_vec"], full["context_vec"])  # (1, T, 3 * 12)
    assert torch.equal(result["wrapper"]["heads"][0]["attn_weights"], full["heads"][0]["attn_weights"])
