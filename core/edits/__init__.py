"""Edits of a merge graph and what they change: blame ([knockout §3.4]), knockout ([knockout §3]), ReBPE's
reparation, reification, annealing and iteration ([rebpe Alg. 1-2]), blocked merges ([rebpe App. A]), the
StepReport of each phase, diagnostics and run archives. Edits never change their input."""
