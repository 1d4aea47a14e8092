#!/bin/sh
# gcbench: cordon and taint the Kubernetes nodes whose verdict is fail.
# Printed by `gcbench report`, never run by it: review, then run.
# A name that is a pod (an MPIJob worker) resolves to its node.
set -e
node_of() { kubectl get pod "$1" -o jsonpath='{.spec.nodeName}' 2>/dev/null || echo "$1"; }
# gpu-node-01: gcbench: GPU 1 0000:2c:00.0: wrong results in gemm: fp16 8192x8192x8192: 2 of 256 checked values wrong (largest error 0.5, tolerance 3e-05; relative error vs
n=$(node_of 'gpu-node-01')
kubectl cordon "$n"
kubectl taint nodes "$n" gcbench=fail:NoSchedule --overwrite
kubectl annotate node "$n" gcbench/reason='gcbench: GPU 1 0000:2c:00.0: wrong results in gemm: fp16 8192x8192x8192: 2 of 256 checked values wrong (largest error 0.5, tolerance 3e-05; relative error vs' --overwrite
# gpu-node-02: gcbench: node gpu-node-02: ECUDA: cudaMemcpyPeer: peer access not supported (+1 more)
n=$(node_of 'gpu-node-02')
kubectl cordon "$n"
kubectl taint nodes "$n" gcbench=fail:NoSchedule --overwrite
kubectl annotate node "$n" gcbench/reason='gcbench: node gpu-node-02: ECUDA: cudaMemcpyPeer: peer access not supported (+1 more)' --overwrite
