"""The admin view's pure core: the view declared once (``schema``), what each source table's items imply
(``sources``), the anchors' one planner (``anchor``), the numbers' exact sums (``numbers``), what a stream
record must carry (``records``) and how attributes are read out of plain items (``values``). No I/O.

It sees no DynamoDB JSON: images and stored items come in as plain values (``str``, ``Decimal``, ``dict``,
``list``, ``set``, ``bool``, None), decoded once where they are read (``dynamo.item_codec``, by the sync and the
repair), and the items and actions it builds are plain too, encoded once by whoever writes them.

May import: the standard library and the source tables' key modules (``shop.keys``, ``returns.keys``, which reach
nothing but ``domain``); never boto3, botocore, PynamoDB, ``dynamo``, or another room of the view (``sync``,
``reads``, ``repair``).
"""
