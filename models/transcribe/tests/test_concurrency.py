"""How many predictions a Whisper model server takes at once: the rule of its fleet's hardware."""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

from decoding import BATCH_SIZE, CPU_CONCURRENCY, CPU_PASS, concurrency_for, cpu_lanes
from whisper_predictor import cores_to_use

REPO = Path(__file__).resolve().parents[3]


def test_a_gpu_takes_a_batch_of_predictions_and_a_cpu_eight() -> None:
    assert concurrency_for(1) == BATCH_SIZE == 16
    assert concurrency_for(0) == CPU_CONCURRENCY == 8


def test_a_cpu_runs_its_passes_in_lanes_of_four_stretches_one_a_core_at_most() -> None:
    assert CPU_PASS == 4
    assert [cpu_lanes(cores) for cores in (1, 2, 3, 8, 64)] == [1, 2, 2, 2, 2]
    assert cpu_lanes(2) * CPU_PASS == CPU_CONCURRENCY  # eight at once fill both lanes' passes


def test_each_whisper_folder_takes_as_many_at_once_as_its_fleets_hardware_says() -> None:
    manifest = json.loads((REPO / "models" / "manifest.json").read_text(encoding="utf-8"))
    whisper = [model for model in manifest["models"] if (REPO / model["predictor"] / "whisper-model").is_file()]
    assert {model["id"] for model in whisper} == {"openai/whisper-base", "openai/whisper-large-v3-turbo"}
    for model in whisper:
        config = yaml.safe_load((REPO / model["predictor"] / "cog.yaml").read_text(encoding="utf-8"))
        wanted = concurrency_for(model["fleet"]["gpus"])
        assert config["concurrency"]["max"] == wanted, model["id"]
        # The fleet starts another task only past what its tasks take at once (infra refuses less).
        assert model["fleet"]["backlogPerTask"] >= wanted, model["id"]


def test_a_container_uses_no_more_cores_than_its_cpu_quota(tmp_path: Path) -> None:
    machine = len(os.sched_getaffinity(0))
    v2, v1 = tmp_path / "cpu.max", tmp_path / "v1"
    assert cores_to_use(v2, v1) == machine  # no cgroup files: the cores it may run on
    v2.write_text("150000 100000\n")
    assert cores_to_use(v2, v1) == min(machine, 2)  # 1.5 CPUs, rounded up
    v2.write_text("50000 100000\n")
    assert cores_to_use(v2, v1) == 1
    v2.write_text("max 100000\n")
    assert cores_to_use(v2, v1) == machine
    v2.unlink()
    v1.mkdir()
    (v1 / "cpu.cfs_quota_us").write_text("100000\n")
    (v1 / "cpu.cfs_period_us").write_text("100000\n")
    assert cores_to_use(v2, v1) == 1
    (v1 / "cpu.cfs_quota_us").write_text("-1\n")
    assert cores_to_use(v2, v1) == machine
