"""Head scores on hand-made attention patterns, and switching heads off."""
import torch

from attention_core.models import head_scores, training


def one_hot_rows(T, key_of):
    """(1, 1, T, T) weights with all of row i on key_of(i)."""
    w = torch.zeros(1, 1, T, T)
    for i in range(T):
        w[0, 0, i, key_of(i)] = 1
    return w


def test_previous_token_and_self_scores():
    previous = one_hot_rows(6, lambda i: max(i - 1, 0))
    assert torch.allclose(head_scores.previous_token_score(previous), torch.tensor([1.0]))
    assert torch.allclose(head_scores.self_score(previous), torch.tensor([1 / 6]))  # only row 0 looks at itself
    uniform = torch.ones(1, 1, 4, 4).tril() / torch.arange(1, 5).view(4, 1)
    assert torch.allclose(head_scores.previous_token_score(uniform), torch.tensor([(1 / 2 + 1 / 3 + 1 / 4) / 3]))


def test_induction_score_of_a_perfect_induction_head():
    ids = torch.tensor([[5, 1, 2, 3, 9, 1, 2, 3]])  # 1 2 3 repeats
    # queries 5, 6, 7 (tokens 1, 2, 3) look at 2, 3, 4: the tokens after their earlier copies
    perfect = one_hot_rows(8, lambda i: {5: 2, 6: 3, 7: 4}.get(i, i))
    assert torch.allclose(head_scores.induction_score(perfect, ids), torch.tensor([1.0]))
    copies = one_hot_rows(8, lambda i: {5: 1, 6: 2, 7: 3}.get(i, i))  # the copy itself, not the next token
    assert torch.allclose(head_scores.induction_score(copies, ids), torch.tensor([0.0]))


def test_mirror_score_of_a_perfect_reverse_head():
    ids = torch.tensor([list(range(10)) + [26] + list(range(9, 0, -1))])  # a reverse sequence of 20
    mirror = one_hot_rows(20, lambda i: 19 - i if i >= 10 else i)  # query i fetches list position 19 - i
    scores = head_scores.scores_of([mirror], "reverse", ids)
    assert torch.allclose(scores["mirror"], torch.tensor([[1.0]]))


def test_heads_off_zero_only_their_out_proj_columns_and_leave_the_model_alone():
    model = training.build_model("repeat", 0, 2, 4, 64)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    quiet = head_scores.with_heads_off(model, [(1, 2)])
    assert all(torch.equal(v, model.state_dict()[k]) for k, v in before.items())  # a copy was changed
    w = quiet.attention_modules[1].out_proj.weight
    assert w[:, 32:48].abs().max() == 0 and torch.equal(w[:, :32], model.attention_modules[1].out_proj.weight[:, :32])
    # Same as running layer 2 with that head's context vectors set to zero.
    ids = torch.randint(0, 32, (2, 32))
    x = quiet.attention_inputs(ids)[1]
    mha = model.attention_modules[1]
    trace = mha.trace(x)
    merged = trace["merged"].clone()
    merged[..., 32:48] = 0
    assert torch.allclose(quiet.attention_modules[1](x), mha.out_proj(merged), atol=1e-6)
