// GlobeCore: the globe domain logic in plain Swift (no ABI, no CLI). Filled in by the globe plugin issue.
