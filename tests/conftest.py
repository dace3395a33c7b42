from __future__ import annotations

import pytest

from tests.helpers.data import MISSING, shared_dir

SLOW_ELSEWHERE = (
    # Tests of more than ~2 s on the shared 2-core machine (a full run with --durations), marked
    # slow here so that `make test-fast` stays under a minute. Each owner may move the mark into
    # the test file (@pytest.mark.slow) and drop the line; parameters are covered by the prefix.
    "tests/adapters/test_adapter_rows.py::test_exported_rows_verify_with_no_env_and_no_data",
    "tests/adapters/test_adapter_rows.py::test_rows_without_a_verifier_column_still_fall_back_to_the_env",
    "tests/adapters/test_adapter_rows.py::test_spec_round_trips_every_family_verifier",
    "tests/adapters/test_adapter_rows.py::test_trl_jsonl_export_of_two_families_loads_with_datasets_and_scores_offline",
    "tests/adapters/test_adapter_rows.py::test_verl_ground_truth_is_plain_text_with_the_structured_task_beside_it",
    "tests/adapters/test_adapter_trl_grpo.py::test_grpo_step_scores_exported_rows_with_no_env_made",
    "tests/code/test_code_datasets.py::test_broken_humaneval_solutions_fail",
    "tests/code/test_code_datasets.py::test_every_humaneval_canonical_solution_passes",
    "tests/code/test_code_datasets.py::test_mbpp_sample_canonical_solutions_pass",
    "tests/code/test_code_datasets.py::test_verl_stdio_cases_get_their_expected_verdicts",
    "tests/code/test_code_docker_harness.py::test_the_container_program_judges_right_wrong_and_cheating_solutions",
    "tests/code/test_code_env.py::test_a_pool_worker_killed_at_its_budget_takes_its_sandboxes_with_it",
    "tests/code/test_code_env.py::test_verify_batch_through_the_pool_keeps_order_and_agrees_with_inline",
    "tests/code/test_code_hostile.py::test_fork_bomb_is_contained",
    "tests/code/test_code_hostile.py::test_infinite_loop_times_out_within_budget",
    "tests/code/test_code_integrity.py::test_a_process_ended_by_its_cpu_time_limit_is_a_timeout",
    "tests/difficulty/test_difficulty_math_arith.py::test_profile_and_filter_math_arith_through_the_pool",
    "tests/difficulty/test_difficulty_profile_claims.py::test_a_profiler_killed_with_sigkill_loses_nothing_and_the_rerun_finishes",
    "tests/difficulty/test_difficulty_samplers.py::test_transformers_sampler_applies_the_chat_template_and_fingerprints_it",
    "tests/difficulty/test_difficulty_samplers.py::test_transformers_sampler_generates_reproducibly_on_cpu",
    "tests/difficulty/test_difficulty_samplers.py::test_transformers_sampler_profiles_an_env_end_to_end",
    "tests/ifeval/test_ifeval_agreement.py::test_reference_unit_tests_agree",
    "tests/ifeval/test_ifeval_checkers.py::test_checker_never_raises_and_stays_fast",
    "tests/ifeval/test_ifeval_checkers.py::test_word_tokenize_shortcuts_change_no_token",
    "tests/ifeval/test_ifeval_envs.py::test_degenerate_guard_decides_as_if_it_normalised_the_whole_response",
    "tests/ifeval/test_ifeval_envs.py::test_verdicts_from_pool_match_inline",
    "tests/ifeval/test_ifeval_hostile.py::test_placeholders_bullets_and_titles_count_as_the_reference_patterns",
    "tests/ifeval/test_ifeval_langdetect.py::test_ngrams_are_langdetects_in_order",
    "tests/ifeval/test_ifeval_langdetect.py::test_walk_stops_where_langdetect_stops_on_every_shared_text",
    "tests/ifeval/test_ifeval_langdetect_compiled.py::test_compiled_label_equals_langdetect_on_hostile_text",
    "tests/ifeval/test_ifeval_langdetect_compiled.py::test_compiled_labels_equal_the_numpy_labels",
    "tests/ifeval/test_ifeval_langdetect_compiled.py::test_compiled_ngram_rows_equal_the_numpy_rows",
    "tests/ifeval/test_ifeval_langdetect_compiled.py::test_compiled_ngram_rows_find_every_reachable_profile_ngram",
    "tests/ifeval/test_ifeval_langdetect_compiled.py::test_compiled_trials_are_bit_identical_to_the_numpy_replay",
    "tests/ifeval/test_ifeval_langdetect_compiled.py::test_threads_detect_as_one_thread_does",
    "tests/ifeval/test_ifeval_langdetect_shortcuts.py::test_compiled_shortcuts_decide_as_the_string_version",
    "tests/ifeval/test_ifeval_langdetect_shortcuts.py::test_lowercasing_a_non_letter_never_yields_an_ascii_letter",
    "tests/ifeval/test_ifeval_langdetect_shortcuts.py::test_warm_up_loads_everything_detection_needs",
    "tests/judge/test_judge_calibration.py::test_an_always_yes_judge_is_flagged_untrustworthy",
    "tests/judge/test_judge_calibration.py::test_cli_calibrate_writes_markdown_and_png",
    "tests/judge/test_judge_calibration.py::test_noisy_stand_in_agreement_tracks_its_flip_rate",
    "tests/judge/test_judge_calibration.py::test_probes_flip_a_gullible_judge_and_not_the_rule_judge",
    "tests/judge/test_judge_conformance.py::test_conformance_with_the_scripted_judge",
    "tests/judge/test_judge_decisions.py::test_cache_never_pays_twice_and_survives_a_new_env",
    "tests/judge/test_judge_decisions.py::test_errors_are_not_cached",
    "tests/lean/test_lean_envs.py::test_conformance_kit",
    "tests/lean/test_lean_pool.py::test_recycling_after_n_uses_and_above_a_memory_limit",
    "tests/lean/test_lean_pool.py::test_timeout_kills_and_replaces_the_repl",
    "tests/lean/test_lean_static.py::test_hostile_completions_never_raise",
    "tests/math/test_math_arith.py::test_every_level_has_correct_answers_and_difficulty",
    "tests/math/test_math_cost.py::test_expansion_heavy_answers_are_refused_at_once_with_a_reason",
    "tests/math/test_math_cost.py::test_ordinary_answers_are_not_refused",
    "tests/math/test_math_equations.py::test_equation_rows",
    "tests/math/test_math_equations.py::test_equation_verdicts_agree_with_the_symbolic_step",
    "tests/math/test_math_equivalence.py::test_agreement_with_peer_labels_is_at_least_99_percent",
    "tests/math/test_math_lenient.py::test_lenient_extraction_finds_what_math_verify_parse_finds",
    "tests/math/test_math_parse_replay.py::test_replayed_choices_give_the_expression_a_full_parse_gives",
    "tests/math/test_math_parser_snapshot.py::test_a_damaged_or_foreign_snapshot_is_not_installed_and_parsing_still_works",
    "tests/math/test_math_parser_snapshot.py::test_a_loaded_snapshot_writes_back_byte_for_byte",
    "tests/math/test_math_parser_snapshot.py::test_answers_convert_the_same_with_the_snapshot_and_it_saves_prediction_work",
    "tests/math/test_math_verifier.py::test_hostile_completions_through_the_pool_stay_within_budget",
    "tests/math/test_math_warm_up.py::test_no_warm_up_string_occurs_in_the_shared_data",
    "tests/test_core_pool.py::test_a_burst_is_shared_between_workers_not_batched_onto_one",
    "tests/test_core_pool.py::test_a_verifier_that_kills_every_worker_it_loads_in_fails_each_call_once_not_forever",
    "tests/test_core_pool.py::test_calls_that_never_ran_are_retried_when_replacement_workers_die_while_loading",
    "tests/test_server_cli.py::test_serve_refuses_an_ambiguous_path_and_export_a_wrong_suffix",
    "tests/test_server_cli.py::test_serve_two_presets_each_from_its_own_file",
    "tests/test_server_openrlhf.py::test_an_answer_shown_in_a_padded_prompt_is_not_read_as_the_response",
    "tests/test_server_openrlhf.py::test_end_phrase_is_read_through_real_eos_strings",
    "tests/test_server_security.py::test_a_label_with_a_spec_is_verified_with_default_options_and_other_options_are_refused",
    "tests/test_server_security.py::test_idle_and_slow_connections_are_closed",
    "tests/trainers/test_trainer_adapters.py::test_mixed_dataset_routes_rows_by_env_id",
    "tests/trainers/test_trainer_adapters.py::test_shaping_adds_format_and_overlong_terms",
    "tests/trainers/test_trainer_adapters.py::test_verl_export_round_trips_through_compute_score",
    "tests/trainers/test_trainer_cli.py::test_serve_answers_get_reward",
    "tests/trainers/test_trainer_cli.py::test_train_from_a_yaml_config_with_a_saved_model",
    "tests/trainers/test_trainer_demo.py::test_verifier_reward_helps_and_random_reward_does_not",
    "tests/trainers/test_trainer_features.py::test_a_1e6_step_with_the_gpu_settings_moves_every_trainable_tensor",
    "tests/trainers/test_trainer_features.py::test_a_group_whose_only_variance_is_a_none_is_dropped_and_the_answer_stays_out_of_logs",
    "tests/trainers/test_trainer_features.py::test_a_mixture_logs_per_env_metrics_and_held_out_envs_are_evaluated",
    "tests/trainers/test_trainer_features.py::test_checkpoints_resume_and_the_run_folder_describes_the_run",
    "tests/trainers/test_trainer_features.py::test_flat_groups_are_judged_on_correctness_not_the_shaped_reward",
    "tests/trainers/test_trainer_features.py::test_lora_trains_only_the_adapter",
    "tests/trainers/test_trainer_training.py::test_dynamic_sampling_drops_flat_groups_from_the_loss",
    "tests/trainers/test_trainer_training.py::test_dynamic_sampling_replaces_flat_groups_with_fresh_prompts",
    "tests/trainers/test_trainer_training.py::test_env_reward_runs_inside_the_trainer",
    "tests/trainers/test_trainer_training.py::test_level_curriculum_moves_the_env_level_from_verdicts",
    "tests/trainers/test_trainer_training.py::test_training_steps_change_weights_and_log_metrics",
)


SERIAL = (
    # Run after the parallel pass, one at a time (`make test`; the marker is `serial`): what holds a
    # machine-wide resource or loads the machine on purpose, and the wall-clock bounds of a second
    # or so that another worker's load could break. A path covers the whole file.
    "tests/code/test_code_under_load.py",  # CPU burners, two per core, beside the hostile suites
    "tests/code/test_code_memory_bound.py",  # memory cgroups and their bounds
    # a Lean check that grows past its memory bound, CPU-bound for ~10 s (the bound is reached in time)
    "tests/lean/test_lean_kernel.py::test_a_check_past_its_memory_bound_is_stopped_and_the_next_check_passes",
    "tests/code/test_code_tools.py",  # python tool: memory cgroups, kill -9 of a parent, per-call budgets
    # other languages: sample uids from 1_950_000_000, which the Python hostile suite's leftover
    # probe (every uid from 1_900_000_000) would count as its own beside another worker
    "tests/code/test_code_languages.py",
    "tests/code/test_code_languages_hostile.py",
    "tests/code/test_code_contests_checkers.py",  # runner uids too (contestants' outputs, special judges)
    "tests/code/test_code_languages_budgets.py",  # runner uids; CPU budgets against wall-clock bounds
    "tests/code/test_code_contests_io.py",  # runner uids (file-I/O tasks run there in every language)
    "tests/code/test_code_contests_interactive.py",  # runner uids, two samples at once per case
    "tests/code/test_code_contests_redteam.py",  # runner uids; file-I/O, interactive and CPU-budget probes
    "tests/code/test_code_contests_limits.py",  # runner uids; a 1.4 s sleep against 1 s and 5 s limits
    "tests/code/test_code_contests_rlimit.py",  # runner uids; loops of ~2 CPU seconds to their RLIMIT_CPU
    "tests/code/test_code_calibrate_runner.py",  # runner uids; file-I/O and interactive references measured
    "tests/code/test_code_contests_kattis.py",  # runner uids; Kattis packages' validators and submissions
    "tests/code/test_code_redteam_round11_kattis_scoring.py",  # runner uids; Kattis scoring packages judged
    "tests/code/test_code_redteam_round12_kattis.py",  # runner uids; Kattis validators with arguments
    "tests/code/test_code_redteam_round12_checkers.py",  # runner uids; special judges fed the expected file
    "tests/code/test_code_redteam_round12_rules.py",  # runner uids; code-python-v8 stdio input rules
    "tests/code/test_code_redteam_round13_checkers.py",  # runner uids; the special-judge audit (constant and broken judges)
    "tests/code/test_code_redteam_round14_interactors.py",  # runner uids; the interactor audit (~50 s)
    "tests/code/test_code_redteam_round15_leftovers.py",  # runner uids; slow interactors, sample dirs (25-33 s)
    "tests/code/test_code_redteam_round11_stdio_rules.py",  # runner uids; a contest row's program judged
    # contest presets' conformance: a float-tolerance task's reference runs in the runner (its uids)
    "tests/test_conformance_all.py::test_conformance[code-contests-v5]",
    "tests/test_conformance_all.py::test_conformance[code-taco-v5]",
    "tests/test_conformance_all.py::test_conformance[code-apps-v5]",
    "tests/test_conformance_all.py::test_conformance[code-livecodebench-v5]",
    "tests/test_conformance_all.py::test_conformance[code-kattis-v4]",  # C++ validators in the runner
    # ~1,100 canonical solutions calibrated 3 times then verified: 160 s alone; past the 300 s
    # timeout beside another worker's sandbox tests (CI, round 7)
    "tests/code/test_code_limits.py::test_calibrated_limits_never_fail_a_canonical_solution_over_all_of_humaneval_and_mbpp",
    "tests/ray/test_ray_pool.py",  # a two-node Ray cluster
    "tests/test_server_deadlines.py",  # raw sockets against short deadlines, the open-files limit
    "tests/test_server_redteam_round10.py",  # 20-25 s of raw sockets; slow-loris timing bounds
    "tests/episodes/test_episode_server.py",  # binds ports; hundreds of concurrent sessions
    "tests/test_server_episode_bodies_round15.py",  # binds ports; raw sockets held past a 3 s body timeout (21-33 s)
    "tests/episodes/test_episodes_ray.py",  # a local Ray; kills a session's actor mid-episode
    "tests/episodes/test_episodes_python_pinned.py",  # python sandboxes under pool workers: cgroups, kills
    "tests/trainers/test_trainer_server.py::test_load_many_concurrent_requests_none_lost_all_right",
    "tests/test_server_security.py::test_idle_and_slow_connections_are_closed",
    "tests/test_server_security.py::test_a_label_naming_a_dataset_env_is_refused_fast_not_downloaded",
    "tests/test_core_pool.py::test_preload_loads_the_verifier_in_every_worker_before_work_arrives",
    "tests/test_core_pool_lifetime.py::test_cancelling_amap_drops_the_calls_that_have_not_started",
    "tests/code/test_code_integrity.py::test_an_inode_flood_is_bounded_and_costs_the_next_sample_nothing",
    "tests/code/test_code_data.py::test_presets_fail_at_make_offline_within_a_second_naming_data",
    "tests/ifeval/test_ifeval_envs.py::test_preset_without_data_offline_fails_at_make_naming_the_data_option",
    "tests/lean/test_lean_envs.py::test_presets_fail_at_make_offline_naming_data",
    "tests/difficulty/test_difficulty_samplers.py::test_a_hung_server_times_out_instead_of_blocking",
    # two profiler threads racing for one store's tasks, each must get some: a fair split needs both
    # threads scheduled (its failures were the store's open race, mended in PassRateStore._prepare)
    "tests/difficulty/test_difficulty_profile_claims.py::test_two_profilers_on_one_store_split_the_work",
    "tests/math/test_math_data.py::test_every_preset_fails_at_make_offline_within_seconds_naming_the_option",
    # each checker on hostile input within 5 s of wall time (one took 9 s beside a second worker)
    "tests/ifeval/test_ifeval_checkers.py::test_checker_never_raises_and_stays_fast",
    # a new process's first verdict, in wall time (took 5.3 s against its 3 s beside a second worker)
    "tests/ifeval/test_ifeval_contract.py::test_the_first_verdict_of_a_new_process_is_cheap",
    # CPU-time bounds per 1 MB input (CPU time still grows beside a second worker: shared caches)
    "tests/ifeval/test_ifeval_hostile.py::test_every_checker_is_linear_on_pathological_megabyte_inputs",
    # a Lean tool call within its 5 s budget + 1 s in wall time (7.2 s at load 10 beside a second worker)
    "tests/lean/test_lean_tools.py::test_hostile_proofs_on_lean_get_a_bounded_reply_within_the_budget",
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        test = item.nodeid.split("[", 1)[0]
        if test in SLOW_ELSEWHERE:
            item.add_marker(pytest.mark.slow)
        if test in SERIAL or item.nodeid in SERIAL or test.split("::", 1)[0] in SERIAL:  # nodeid: one param
            item.add_marker(pytest.mark.serial)


def pytest_terminal_summary(terminalreporter):
    """Say once, at the end, how many skips were for missing peer data and how to get it."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if MISSING in str(r.longrepr)]
    if skipped:
        terminalreporter.write_line(
            f"{len(skipped)} skipped for {MISSING} (tests, or whole modules that load it): point "
            f"RLVR_TEST_DATA at the folder or fetch it, see docs/test-data.md",
            yellow=True,
        )


@pytest.fixture(scope="session")
def shared_data():
    """The peer data folder (``RLVR_TEST_DATA``, default ../shared/data); skips the test when it is missing."""
    return shared_dir()


@pytest.fixture(autouse=True)
def _isolated_registry():
    """Ids a test registers are forgotten after it, so no test sees another's registrations.

    Module-level registrations (made while collecting) stay: they exist before any test runs.
    """
    import rlvr_envs.registration as registration

    with registration.registry.isolated():
        yield
