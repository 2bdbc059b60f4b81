"""Fields a drafter is trained with, and the table rows that say whether each path reads
them: the data behind RD101 (rules/reads.py). Adding a row to `table.FACTS` for one of
these keys, or an entry here, makes a finding without new rule code.

A row's value says what a release's path reads: a tuple of names or pointers (the field is
read when the tuple lists one of its spellings; `("/x", shift)` pairs count by pointer),
or a bool (read or not). A field has one or more spellings: alternative places or names a
checkpoint may carry it under.
"""

from __future__ import annotations

from dataclasses import dataclass

# When a field's value asks for something a path that does not read it would not do
WHEN = {
    "true": "is true",          # a flag that switches computation on
    "false": "is false",        # a flag that switches computation off
    "sliding": "lists sliding_attention layers",
}


@dataclass(frozen=True)
class Trained:
    family: str
    spellings: tuple[tuple[str, str], ...]   # (pointer in config.json, name the rows list; "")
    key: str             # the fact whose rows say whether each release's path reads it
    when: str            # a key of WHEN: the values that ask for something
    severity: str        # "error" where skipping it changes the computation, else "warning"
    instead: str         # what the path computes instead, for the message
    unread: str = "does not read it"    # how a path that reads no spelling is described


TRAINED: tuple[Trained, ...] = (
    # EAGLE-3.1 (eagle3.reads-3.1-flags): fc_norm normalises each aux chunk before fc,
    # norm_output feeds the post-norm state back, norm_before_fc normalises fc's input
    Trained("eagle3", (("/fc_norm", "fc_norm"), ("/use_aux_norm", "use_aux_norm")),
            "eagle3.reads-3.1-flags", "true", "error",
            "the aux hidden states enter fc without their trained per-tap norms"),
    Trained("eagle3", (("/norm_output", "norm_output"),), "eagle3.reads-3.1-flags", "true",
            "error", "the un-normed hidden state is fed back to the next draft step"),
    # norm_before_fc by where each release reads it (vLLM 0.18-0.21: the top level only)
    Trained("eagle3", (("/eagle_config/norm_before_fc", "eagle_config.norm_before_fc"),
                       ("/norm_before_fc", "norm_before_fc")),
            "eagle3.norm-before-fc-sources", "true", "error",
            "fc's input runs without its trained input_norm"),
    # speculators-trained heads carry the normed state as the first layer's residual
    Trained("eagle3", (("/norm_before_residual", ""),), "eagle3.reads-norm-before-residual",
            "true", "warning", "the first layer takes the un-normed residual"),
    # a head trained on the last hidden state only (no aux states)
    Trained("eagle3", (("/eagle_config/use_aux_hidden_state", ""),),
            "eagle3.reads-use-aux-hidden-state", "false", "error",
            "the aux hidden states are captured and fed to the head instead of the last "
            "hidden state"),
    # DFlash sliding layers: a path that reads no window runs them as full attention
    Trained("dflash", (("/layer_types", ""),), "dflash.window-sources", "sliding", "error",
            "its sliding layers run without a window (full attention)", "reads no window"),
)
