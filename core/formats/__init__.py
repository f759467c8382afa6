"""Files of every kind, each in its own module or folder: HF ``tokenizer.json``, GPT-2 ``merges.txt``,
SentencePiece ``.model``, tiktoken rank files, folders and ``hf:`` ids, corpora and word counts, the shipped
samples; ``tokeniser_files.py`` recognises a tokeniser file by its content."""
