"""Every tokeniser family behind the one :class:`core.tokeniser.Tokeniser` interface: BPE, Scaffold-BPE,
PickyBPE, BoundlessBPE, Unigram, TrimmedBPE and BPE-dropout; ``registry.py`` lists their trainers and saved
formats."""
