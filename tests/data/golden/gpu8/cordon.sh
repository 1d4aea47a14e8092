#!/bin/sh
# gcbench: cordon and taint the Kubernetes nodes whose verdict is fail.
# Printed by `gcbench report`, never run by it: review, then run.
# A name that is a pod (an MPIJob worker) resolves to its node.
set -e
node_of() { kubectl get pod "$1" -o jsonpath='{.spec.nodeName}' 2>/dev/null || echo "$1"; }
# gpu0000: gcbench: GPU 1 0000:3b:00.0: GEMM 40 % below its peers in 4 of 4 case(s) (worst fp8 8192x8192x8192: 870.6 vs 1450 TFLOP/s); 6 acceptance check misses (+4 more)
n=$(node_of 'gpu0000')
kubectl cordon "$n"
kubectl taint nodes "$n" gcbench=fail:NoSchedule --overwrite
kubectl annotate node "$n" gcbench/reason='gcbench: GPU 1 0000:3b:00.0: GEMM 40 % below its peers in 4 of 4 case(s) (worst fp8 8192x8192x8192: 870.6 vs 1450 TFLOP/s); 6 acceptance check misses (+4 more)' --overwrite
