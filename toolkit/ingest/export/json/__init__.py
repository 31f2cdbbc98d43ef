"""The JSON reader: a streamed parse of ``result.json`` (``stream``) and one record to one
message (``messages``, with its ``text``, ``reactions`` and ``topics``)."""
