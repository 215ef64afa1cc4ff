// The kinds of map a model run shows and dumps: the attention probabilities, attention rollout, value-weighted maps.
// Each kind lives in one file (kind_<name>.cpp): its name, why a run cannot make it, what the collector collects
// for it, what `attnviz-cli model --dump OUT --kind K` writes of it, and how the programs show it (KindShows: read
// instead of comparing kinds). MapKinds() is the one list both programs read: the CLI's --kind, the app's Map choice,
// the widget and file names; the app's words for each kind are app/common/i18n/map_kind_words.h.
#pragma once
#include <string>
#include <vector>

#include "base/status.h"
#include "io/npy.h"
#include "model/config.h"
#include "model/run.h"

namespace attnviz {

enum class MapKind { kAttention, kRollout, kValueWeighted };

struct CollectPlan;    // layer_collector.h
struct LayerAnalysis;  // layer_collector.h

// What most kinds state: no refusal, nothing to collect beyond the maps, no scratch memory; the [n_layer, n_head, n,
// n] shape of per-head maps.
inline Status NoRefusal(int) { return Status::Ok(); }
inline void CollectOnlyMaps(CollectPlan*) {}
inline double NoScratch(int) { return 0.0; }
std::vector<size_t> PerHeadMapsShape(const model::ModelConfig& c, int n);

// What --dump writes of a kind, one layer at a time as the run passes it (LayerTaps).
struct KindDump {
  const char* file = "";  // under OUT
  // The array's shape for a run of n tokens: [n_layer, ...].
  std::vector<size_t> (*shape)(const model::ModelConfig& c, int n) = nullptr;
  // The layer's values onto `npy` (scratch: a buffer the kind may reuse across layers).
  Status (*append)(const model::LayerOutput& out, const LayerAnalysis& a, NpyStreamWriter* npy,
                   std::vector<float>* scratch) = nullptr;
  // A small file beside it ("" none) and its text for n tokens.
  const char* sidecar_file = "";
  std::string (*sidecar)(int n) = nullptr;
  // The memory its append needs beside the collector's (bytes, for a run of n tokens).
  double (*scratch_bytes)(int n) = NoScratch;
};

// How the programs show a kind, so that none compares kinds: each kind's file sets what differs from attention.
struct KindShows {
  // Made from the layer's attention maps, not the maps themselves: costs time per layer (the app budgets it), is
  // named in file names and asked for by --kind.
  bool derived = false;
  bool one_map = false;    // one map for the whole layer, the heads mixed: no head to pick, export or open
  bool own_range = false;  // not probabilities: drawn and written on its own min..max (a weight times a norm)
  bool head_roles = false;        // the heads' roles (previous token, first token...) are read from these maps
  bool after_last_layer = false;  // the run makes it after its last layer (each layer's waits for the run's end)
  // A long input's exact cells come from the layer's q and k (rows made on demand); false: its pooled cells are
  // blocks of tokens, with no exact cell behind them.
  bool exact_from_qk = true;
  // A streamed run keeps none of it: the shown layer's pyramid (and its exact cells' column scale) is made on
  // demand, the attention maps shown meanwhile.
  bool needs_pyramid = false;
  const char* title = "";  // a figure title's word for it ("" the heads alone)
};

struct MapKindInfo {
  MapKind kind = MapKind::kAttention;
  const char* name = "";       // "attention", "rollout", "value_weighted" (--kind, widgets JSON, file names)
  const char* cli_alias = "";  // the older attnviz-cli flag that means --kind NAME ("" none)
  // Why a run over n tokens makes no such map (Ok when it makes it).
  Status (*refusal)(int n) = NoRefusal;
  // Turns on in `plan` what the collector must collect for this kind.
  void (*collect)(CollectPlan* plan) = CollectOnlyMaps;
  KindDump dump;
  KindShows shows;
};

// Every kind, in the order the app's Map choice shows them.
const std::vector<const MapKindInfo*>& MapKinds();
const MapKindInfo& KindInfo(MapKind kind);
// The kind named `name`; null when none is.
const MapKindInfo* MapKindNamed(const std::string& name);
const char* MapKindName(MapKind kind);  // KindInfo(kind).name
std::string MapKindNames();             // "attention, rollout, value_weighted"

// The kinds (one file each).
const MapKindInfo& AttentionKind();
const MapKindInfo& RolloutKind();
const MapKindInfo& ValueWeightedKind();

}  // namespace attnviz
