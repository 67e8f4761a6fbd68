OBJECTIVES = ("throughput", "latency", "balanced", "goodput", "delay", "retransmissions", "fairness")
