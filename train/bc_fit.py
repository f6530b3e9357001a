"""Cloning for ``domino_env.train.bc``: the masked cross-entropy fit of a MaskablePPO policy on a
dataset of expert decisions (:func:`fit`, with an optional KL anchor to the starting policy), its
held-out check, and the clone's agreement with the expert on its own DAgger states
(:func:`on_policy_agreement`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from domino_env.core.errors import DominoError
from domino_env.train.bc_data import held_out


def fit(
    policy: Any,
    data: dict[str, np.ndarray],
    scale: np.ndarray,
    num_actions: int,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    vf_coef: float,
    val_fraction: float,
    seed: int,
    progress: bool = False,
    stop: Any = None,
    log: list[dict[str, Any]] | None = None,
    desc: str = "cloning",
    policy_input: Any = None,
    anchor: Any = None,
    kl_coef: float = 0.0,
) -> list[dict[str, Any]]:
    """Train ``policy`` (a MaskablePPO policy, in place) on ``data`` by masked cross-entropy on the
    expert's actions plus ``vf_coef`` x the value head's squared error on the returns.

    About ``val_fraction`` of the episodes is held out (:func:`held_out`: the same episodes in
    every call, so after a DAgger round the held-out samples were never trained on). Returns (and appends to ``log``) one
    entry per epoch: ``{"epoch", "train_loss", "train_value_loss", "val_loss", "val_agreement"
    (the held-out share where the clone's most likely legal action is the expert's), "samples"}``.

    ``policy_input`` (a :class:`domino_env.agents.action_scorer.PolicyInput`) builds the network
    input of each raw observation and mask (the action features of ``--policy action-scores``);
    without it the input is the scaled observation. ``anchor`` (a frozen copy of the starting
    policy) adds ``kl_coef`` x KL(anchor || policy) over the legal actions to the loss, which keeps
    a fine-tuned clone near the model it started from.
    """
    import torch

    from domino_env.train.progress import progress_bar

    log = [] if log is None else log
    rng = np.random.default_rng([seed, 13])
    is_val = held_out(data["episodes"], val_fraction)
    train_idx, val_idx = np.flatnonzero(~is_val), np.flatnonzero(is_val)
    if len(val_idx) and not len(train_idx):  # it trained on nothing and wrote the untrained network
        episodes = len(np.unique(data["episodes"]))
        raise DominoError(f"nothing to clone: the {episodes} episode(s) of the {len(val_idx)} decisions are all held "
                          f"out to measure the agreement (--val-fraction {val_fraction:g}); collect more "
                          "(--samples, --dagger-samples) or give --val-fraction 0")  # fmt: skip
    scale_t = torch.as_tensor(scale, dtype=torch.float32)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)

    def batch(idx):
        masks = np.unpackbits(data["masks"][idx], axis=1, count=num_actions).astype(bool)
        if policy_input is None:
            obs = torch.as_tensor(data["observations"][idx], dtype=torch.float32) * scale_t
        else:
            raw = data["observations"][idx].astype(np.float32)
            obs = torch.as_tensor(np.stack([policy_input(o, m) for o, m in zip(raw, masks, strict=True)]))
        acts = torch.as_tensor(data["actions"][idx].astype(np.int64))
        rets = torch.as_tensor(data["returns"][idx])
        return obs, torch.as_tensor(masks), acts, rets

    steps = epochs * max(1, -(-len(train_idx) // batch_size))
    bar = progress_bar(total=steps, desc=desc, unit="batch", disable=not progress)
    for epoch in range(1, epochs + 1):
        policy.train()
        order = rng.permutation(train_idx)
        total = vtotal = 0.0
        for i in range(0, len(order), batch_size):
            if stop is not None and stop.received:
                break
            obs, masks, acts, rets = batch(order[i : i + batch_size])
            values, log_prob, _ = policy.evaluate_actions(obs, acts, masks)
            value_loss = torch.nn.functional.mse_loss(values.flatten(), rets)
            loss = -log_prob.mean() + vf_coef * value_loss
            if anchor is not None and kl_coef > 0:
                loss = loss + kl_coef * _kl_to(anchor, policy, obs, masks)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            total += loss.item() * len(acts)
            vtotal += value_loss.item() * len(acts)
            bar.update(1)
        if stop is not None and stop.received:
            break
        entry = {"phase": desc, "epoch": epoch, "train_loss": total / max(1, len(order)),
                 "train_value_loss": vtotal / max(1, len(order)), "samples": int(len(order))}  # fmt: skip
        entry.update(_validate(policy, batch, val_idx, batch_size))
        log.append(entry)
        shown = {"loss": f"{entry['train_loss']:.3f}"}
        if "val_agreement" in entry:  # none without a held-out split (--val-fraction 0)
            shown["agree"] = f"{entry['val_agreement']:.3f}"
        bar.set_postfix(shown, refresh=False)  # drawn by the next update or the close: one line each into a log
    bar.close()
    policy.eval()
    return log


def on_policy_agreement(clone: Any, more: dict[str, np.ndarray], num_actions: int, limit: int = 2000) -> float | None:
    """The share of (the first ``limit``) DAgger decisions where ``clone`` plays the expert's
    label, rounded to 4 digits; None for a round stopped before any decision (not NaN, which
    ``metadata.json`` cannot hold as JSON)."""
    rows = zip(more["observations"][:limit], more["masks"][:limit], more["actions"][:limit], strict=True)
    hits = [int(clone(o, np.unpackbits(m, count=num_actions).astype(bool), None)) == a for o, m, a in rows]
    return round(float(np.mean(hits)), 4) if hits else None


def _kl_to(anchor: Any, policy: Any, obs: Any, masks: Any) -> Any:
    """Mean KL(anchor || policy) of the masked action distributions of one minibatch."""
    import torch

    with torch.no_grad():
        p0 = anchor.get_distribution(obs, action_masks=masks).distribution.probs
    logp = policy.get_distribution(obs, action_masks=masks).distribution.logits  # log-probabilities
    legal = p0 > 0
    return torch.where(legal, p0 * (torch.log(p0.clamp_min(1e-30)) - logp), torch.zeros_like(p0)).sum(1).mean()


def _validate(policy: Any, batch, idx: np.ndarray, batch_size: int) -> dict[str, float]:
    import torch

    if len(idx) == 0:
        return {}
    loss = agree = 0.0
    policy.eval()
    with torch.no_grad():
        for i in range(0, len(idx), 4 * batch_size):
            obs, masks, acts, _ = batch(idx[i : i + 4 * batch_size])
            dist = policy.get_distribution(obs, action_masks=masks)
            loss += float(-dist.log_prob(acts).sum())
            agree += float((dist.distribution.probs.argmax(dim=1) == acts).sum())
    return {"val_loss": loss / len(idx), "val_agreement": agree / len(idx), "val_samples": int(len(idx))}
