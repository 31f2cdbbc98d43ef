"""Ukrainian: its lexicon (``lexicon``) and its summary pack (``pack``)."""
