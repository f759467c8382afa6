"""Reading results: why a word segments as it does, two tokenisers compared, corpus metrics, merge usage,
a tokeniser's summary, corpus token statistics, families trained side by side and their training dynamics."""
