"""English: its lexicon (``lexicon``) and its summary pack (``pack``)."""
