// English: every UI string, in the order of Str (ui_strings.h). {0}, {1}: Trf's arguments.
#include <iterator>

#include "ui_strings.h"

namespace attnviz {

constexpr StringEntry kStringsEnTable[] = {
    // ---- window titles
    {Str::kWinControls, "Controls"},
    {Str::kWinSentences, "Sentences"},
    {Str::kWinHeads, "Heads"},
    {Str::kWinShapes, "Shapes \xC2\xB7 learn"},
    {Str::kWinSaturation, "Saturation"},
    {Str::kWinExport, "Export"},
    {Str::kWinModel, "Model"},
    {Str::kWinOverview, "Overview"},
    // ---- menu bar
    {Str::kMenuFile, "File"},
    {Str::kMenuQuit, "Quit"},
    {Str::kMenuView, "View"},
    {Str::kMenuResetLayout, "Reset layout"},
    // ---- shared words
    {Str::kLanguage, "language"},
    {Str::kComputing, "computing\xE2\x80\xA6"},
    {Str::kNoResultYet, "No result yet."},
    {Str::kOpen, "Open"},
    {Str::kNotApplied, "Not applied: {0}"},
    {Str::kNa, "n/a"},
    // ---- Controls
    {Str::kTrainedModelButton, "Trained model\xE2\x80\xA6"},
    {Str::kAttention, "Attention"},
    {Str::kDModel, "d_model"},
    {Str::kHeadsKnob, "heads"},
    {Str::kDkTip, "query/key width per head (log slider; Ctrl+click to type)"},
    {Str::kAuto, "auto"},
    {Str::kDkAutoTip, "d_k = d_model / heads"},
    {Str::kDvAutoTip, "d_v = d_k"},
    {Str::kScaleCheckbox, "divide logits by \xE2\x88\x9A" "d_k  (S)"},
    {Str::kTemperature, "temperature"},
    {Str::kMask, "mask"},
    {Str::kMaskNone, "none"},
    {Str::kMaskCausal, "causal"},
    {Str::kMode, "mode"},
    {Str::kModeSelf, "self"},
    {Str::kModeCross, "cross"},
    {Str::kQkv, "QKV"},
    {Str::kQkvFused, "fused"},
    {Str::kQkvSeparate, "separate"},
    {Str::kSeed, "seed"},
    {Str::kPositional, "positional encoding"},
    {Str::kPicture, "Picture"},
    {Str::kColormap, "colormap"},
    {Str::kColour, "colour"},
    {Str::kColourLinear, "linear"},
    {Str::kColourLog, "log"},
    {Str::kRange, "range"},
    {Str::kRangeFixed, "fixed 0..1"},
    {Str::kRangeAuto, "auto"},
    {Str::kQueryFrom, "query from"},
    {Str::kKeyFrom, "key from"},
    {Str::kValueFrom, "value from"},
    {Str::kScore, "score"},
    {Str::kFeatureEmbedding, "embedding"},
    {Str::kFeatureLength, "word length"},
    {Str::kFeaturePosition, "position"},
    {Str::kFeatureOneHot, "one-hot token"},
    {Str::kScoreScaledDot, "scaled dot"},
    {Str::kScoreDot, "dot"},
    {Str::kScoreAdditive, "additive"},
    {Str::kScoreCosine, "cosine"},
    {Str::kScoreNegDistance, "\xE2\x88\x92|q \xE2\x88\x92 k|"},
    {Str::kFeaturesTip, "where q, k and v come from: a score needs d_q = d_k"},
    // ---- Sentences
    {Str::kQuerySentence, "Query sentence (rows)"},
    {Str::kKvSentence, "Key/value sentence (columns)"},
    {Str::kSentence, "Sentence"},
    {Str::kQueriesByKeys, "{0} queries \xC3\x97 {1} keys"},
    {Str::kLoadedSentences, "Loaded sentences"},
    {Str::kSentenceFile, "Sentence file"},
    {Str::kRecent, "Recent:"},
    {Str::kSentencesTip, "Tip: drop a sentence file on the window to open it. One item a line; "
                         "'query ||| key/value' makes a cross-attention item."},
    {Str::kLoadedSentencesFrom, "Loaded {0} sentences from {1}"},
    // ---- Heads
    {Str::kDismiss, "dismiss"},
    {Str::kComputingStage, "computing {0}"},
    {Str::kHeadsStatusKeys, "Left/Right: head, S: scaling"},
    {Str::kShowingLastGood, "{0} (showing the last good result)"},
    {Str::kSettingsNotApplied, "Settings not applied: {0}"},
    {Str::kShow, "show:"},
    {Str::kViewGrid, "grid"},
    {Str::kViewEnlarged, "enlarged"},
    {Str::kViewSideBySide, "scaled vs unscaled"},
    {Str::kPoolMax, "max"},
    {Str::kPoolMean, "mean"},
    {Str::kEveryHeadHidden, "Every head is hidden: tick a box above to show one."},
    {Str::kClickBackToGrid, "(click: back to the grid)"},
    {Str::kComputingOtherScaling, "computing the other scaling\xE2\x80\xA6"},
    {Str::kUnscaledPrefix, "unscaled: "},
    {Str::kTipHead, "head {0}"},
    {Str::kTipQuery, "query {0}: {1}"},
    {Str::kTipKey, "key {0}: {1}"},
    {Str::kTipMasked, "masked (causal): weight 0"},
    {Str::kTipWeight, "weight: {0}"},
    {Str::kTipLogitBefore, "logit before scaling (q\xC2\xB7k): {0}"},
    {Str::kTipLogitAfter, "logit after ({0}): {1}"},
    {Str::kUnscaled, "unscaled"},
    {Str::kTipRowEntropy, "row entropy: {0} nats (normalized {1})"},
    {Str::kTipRowMax, "row max weight: {0}"},
    {Str::kTipDrawn, "drawn: {0} of {1}x{2} cells per texel"},
    {Str::kCaptionHead, "head {0}"},
    {Str::kMaskedLegend, "masked"},
    // ---- Saturation
    {Str::kNowDk, "| now: d_k {0}"},
    {Str::kCurveMaxWeight, "mean max weight (1 = one key takes all)"},
    {Str::kCurveEntropy, "normalized entropy (1 = uniform)"},
    {Str::kCurveGrad, "softmax gradient size ||J||"},
    {Str::kSweeping, "sweeping d_k\xE2\x80\xA6"},
    {Str::kSweepSummary, "sweep: {0} points, {1} ms; dots: the heads now"},
    {Str::kTipScaled, "scaled:   {0}"},
    {Str::kTipUnscaled, "unscaled: {0}"},
    {Str::kColHead, "head"},
    {Str::kColMaxW, "max w"},
    {Str::kColHNorm, "H norm"},
    {Str::kColGrad, "\xE2\x88\x87 size"},
    {Str::kColLogitSd, "logit sd"},
    // ---- Shapes
    {Str::kNoModelOpen, "No model open."},
    {Str::kModelLayers, "{0}, each of {1} layers:"},
    {Str::kGroupedQueryShapes, "Grouped-query attention: {0} query heads, {1} key/value heads. Keys and values always "
                               "come in pairs (one v row per k row); queries may differ in number: query head h "
                               "reads k/v head h / {2}."},
    {Str::kEveryHeadOwnKv, "Every query head has its own key/value head (n_head = n_kv_head = {0}): keys and values "
                           "come in pairs; q and k share d_head (a score is q\xC2\xB7k)."},
    {Str::kShapesRules, "q and k must share d_k = {0} (a logit is q\xC2\xB7k); d_v = {1} is free (values are only "
                        "averaged); keys and values come in pairs (n_k = {2} rows each: weight j mixes value j)."},
    {Str::kColStep, "step"},
    {Str::kColTensor, "tensor"},
    {Str::kColShape, "shape"},
    {Str::kNoteQuerySentence, "the query sentence"},
    {Str::kNoteKvSentence, "the key/value sentence"},
    {Str::kNoteTokensPositions, "tokens + positions"},
    {Str::kNoteRowsSumToOne, "each row sums to 1 over the keys"},
    {Str::kNoteOneMapPerHead, "one map per query head"},
    {Str::kResidualStream, "x (residual stream)"},
    {Str::kTabShapes, "Shapes"},
    {Str::kTabNumbers, "Numbers"},
    {Str::kTabLessons, "Lessons"},
    {Str::kTabDictionary, "Dictionary"},
    {Str::kTabVariance, "Variance"},
    {Str::kFusedNote, "fused: one matrix W [d_model, {0}] = [W_q | W_k | W_v]; x W, then split the columns"},
    {Str::kSeparateNote, "separate: three matrices W_q, W_k, W_v (three Linears); the same numbers as the fused "
                         "W's column blocks"},
    // ---- Export
    {Str::kExportHead, "head"},
    {Str::kExportHeads, "heads"},
    {Str::kExportSaturation, "saturation"},
    {Str::kExportOverview, "overview"},
    {Str::kFolder, "folder"},
    {Str::kFile, "file"},
    {Str::kExportHeadHint, "head {0} (click a map or use Left/Right to pick)"},
    {Str::kExportButton, "Export"},
    {Str::kExporting, "Exporting\xE2\x80\xA6"},
    {Str::kExportingPath, "Exporting {0}\xE2\x80\xA6"},
    {Str::kWrote, "Wrote {0}"},
    {Str::kExportFailed, "Export failed: {0}"},
    {Str::kNoFileName, "no file name"},
    {Str::kExportTitle, "title"},
    {Str::kExportTitleHint, "automatic: the settings"},
    {Str::kExportSize, "size"},
    {Str::kExportSizeTip, "empty: automatic; or width x height in in, cm or mm (3.3x3in, 8x7cm)"},
    {Str::kExportDpi, "dpi"},
    {Str::kExportAnnotate, "annotate"},
    // ---- Model
    {Str::kSourceSandbox, "Sandbox (random layer, every knob)"},
    {Str::kSourceModel, "Trained model"},
    {Str::kModelFolderHint, "Model folder (config.json, model.safetensors, tokenizer)"},
    {Str::kBundledTiny, "bundled: tiny"},
    {Str::kOpeningModel, "Opening {0}\xE2\x80\xA6"},
    {Str::kDropModelHint, "Drop a model folder on the window, or give its path. A Hugging Face folder as "
                          "save_pretrained or a clone of a model repository leaves it: GPT-2, BERT, Llama, Qwen2, "
                          "Mistral."},
    {Str::kLayer, "layer"},
    {Str::kHideSpecial, "hide special tokens ([CLS], [SEP], BOS)"},
    {Str::kWhatIf, "What if"},
    {Str::kNoScaling, "no 1/\xE2\x88\x9A" "d_head scaling"},
    {Str::kOnLayers, "on layers"},
    {Str::kOnLayersHint, "all (or e.g. 0,2,5)"},
    {Str::kRunning, "running {0}"},
    {Str::kHeadRoleLine, "Layer {0}, head {1}: {2} {3}. {4}"},
    {Str::kTokensAsModelSees, "{0} tokens, as the model sees them ({1} s):"},
    {Str::kSpecialToken, "(special)"},
    // ---- Overview
    {Str::kComputingFirstMaps, "computing the first maps\xE2\x80\xA6"},
    {Str::kOpenModelForOverview, "Open a trained model in the Model panel to see every layer and head here."},
    {Str::kGroupedQueryOverview, "grouped-query attention: {0} query heads share {1} key/value heads ({2} each); keys "
                                 "and values always come in pairs, queries may differ in number"},
    {Str::kRoleFilter, "role filter"},
    {Str::kRoleFilterHint, "e.g. induction >= 0.4"},
    {Str::kOverviewTip, "layer {0}, head {1}{2}\nmean max attention {3}, entropy {4} nats"},
    // ---- Lessons
    {Str::kLessonsIntro, "Seven questions from the lecture notes. Each button sets the knobs to show the answer; "
                         "then play with them to answer the question below it."},
    {Str::kLessonShow, "Show me"},
    {Str::kLessonQuestion, "Try it: {0}"},
    {Str::kLessonNow, "Lesson {0}"},
    {Str::kLessonATitle, "(a) Why must d_q equal d_k, while d_v may differ?"},
    {Str::kLessonAText, "A score is a dot product q\xC2\xB7k: it multiplies the query's numbers with the key's numbers "
                        "one by one, so both need the same width d_k. A value is only ever multiplied by a weight: "
                        "the output is a weighted average of value rows, and an average of d_v-wide rows is d_v wide, "
                        "whatever d_v is."},
    {Str::kLessonAButton, "d_k = 16, d_v = 48, and the Shapes tab"},
    {Str::kLessonAQuestion, "drag d_v: which rows of the Shapes table change, and does probs? Then drag d_k: why "
                            "does probs keep its shape?"},
    {Str::kLessonBTitle, "(b) Why may the number of queries differ from the number of keys?"},
    {Str::kLessonBText, "In encoder-decoder (cross) attention the queries come from one sentence, the keys and values "
                        "from another. probs has one row per query and one column per key, so n_q and n_k are free. "
                        "Keys and values come in pairs: weight j multiplies value row j, so there is exactly one "
                        "value per key."},
    {Str::kLessonBButton, "cross attention, n_q != n_k"},
    {Str::kLessonBQuestion, "add a word to the query sentence: which dimension of probs grows? Add one to the "
                            "key/value sentence: which tensors grow?"},
    {Str::kLessonCTitle, "(c) Is a fused Linear(d, 3d) + split the same as three Linears? How are heads split?"},
    {Str::kLessonCText, "The fused W is W_q, W_k and W_v side by side: x W gives [q | k | v] in one multiplication, "
                        "and splitting its columns gives exactly what three Linears give. q is then viewed as "
                        "[batch, seq, head, d/head] and transposed to [batch, head, seq, d/head]: a head is a slice "
                        "of columns, no new numbers."},
    {Str::kLessonCButton, "fused, 4 heads, and the Numbers tab"},
    {Str::kLessonCQuestion, "switch QKV between fused and separate: does the largest difference leave 0? Which "
                            "columns of W are head 1 of q?"},
    {Str::kLessonDTitle, "(d) Why divide by \xE2\x88\x9A" "d_k?"},
    {Str::kLessonDText, "With unit-variance components, q\xC2\xB7k is a sum of d_k products: its variance is d_k, its "
                        "spread \xE2\x88\x9A" "d_k. Unscaled, the logits grow with d_k, the softmax piles onto one key "
                        "and its gradient vanishes. Dividing by \xE2\x88\x9A" "d_k brings the spread back to 1 at "
                        "every d_k."},
    {Str::kLessonDButton, "d_k = 512, unscaled next to scaled"},
    {Str::kLessonDQuestion, "turn scaling off and drag d_k: at which d_k does the max weight pass 0.9?"},
    {Str::kLessonETitle, "(e) What do several heads buy?"},
    {Str::kLessonEText, "Each head has its own W_q, W_k and W_v, so each draws its own map: one head can follow the "
                        "previous word while another spreads over the sentence. The heads' outputs z are concatenated "
                        "and mixed by W_o. At the same d_model, more heads means more maps, each with a narrower "
                        "d_k."},
    {Str::kLessonEButton, "8 heads, d_model 128"},
    {Str::kLessonEQuestion, "which head has the largest max weight in the Saturation table? Change the seed: is it "
                            "still the same head?"},
    {Str::kLessonFTitle, "(f) Can Q, K and V come from different features?"},
    {Str::kLessonFText, "Yes: a score only needs a query and a key of one width. One lecture note scores words by "
                        "their length: the key is the word length, the query a length, and the score minus their "
                        "difference. A query from the embedding (d_k wide) against a key from the length (1 wide) is "
                        "refused: the widths must match."},
    {Str::kLessonFButton, "q and k from word length, score \xE2\x88\x92|q \xE2\x88\x92 k|"},
    {Str::kLessonFQuestion, "set the query back to the embedding and keep the key from the length: what does the "
                            "error say, and why?"},
    {Str::kLessonGTitle, "(g) Attention as a soft dictionary"},
    {Str::kLessonGText, "A Python dict returns the value whose key equals the query. Attention scores the query "
                        "against every key, turns the scores into weights with a softmax and returns the weights' "
                        "blend of the values. At a low temperature the best key takes all the weight: an exact "
                        "lookup. A query that matches no key gets a blend."},
    {Str::kLessonGButton, "the Dictionary tab"},
    {Str::kLessonGQuestion, "in {'a': 1, 'b': 2, 'c': 3} ask for 'b', then for 'z' (no such key): what comes back "
                            "at temperature 0.01, and at 10?"},
    // ---- Dictionary
    {Str::kDictIntro, "A dictionary that matches softly: each key's weight is softmax(score(query, key) / T); the "
                      "answer is the weights' blend of the values."},
    {Str::kDictTable, "table"},
    {Str::kDictQuery, "query"},
    {Str::kDictKey, "key"},
    {Str::kDictValue, "value"},
    {Str::kDictScore, "score"},
    {Str::kDictWeight, "weight"},
    {Str::kDictBlended, "blended value: {0}"},
    {Str::kDictExact, "exact: key {0} takes {1} of the weight"},
    {Str::kDictSoft, "soft: the best key {0} takes only {1} of the weight"},
    {Str::kDictAddRow, "add a row"},
    {Str::kDictRemoveRow, "remove the last row"},
    {Str::kDictWords, "keys compared as words (one-hot)"},
    {Str::kDictNumbers, "keys compared as numbers"},
    // ---- Variance
    {Str::kVarIntro, "q\xC2\xB7k of random q and k whose components have variance 1: its spread grows like "
                     "\xE2\x88\x9A" "d_k."},
    {Str::kVarDk, "d_k (this picture)"},
    {Str::kVarHistogram, "histogram of q\xC2\xB7k over {0} random pairs"},
    {Str::kVarStd, "std {0}   \xE2\x88\x9A" "d_k = {1}"},
    {Str::kVarRow, "one query against {0} keys: softmax weights"},
    {Str::kVarUnscaled, "unscaled"},
    {Str::kVarScaled, "\xC3\xB7\xE2\x88\x9A" "d_k"},
    {Str::kVarMaxWeight, "max weight {0}"},
    // ---- Numbers
    {Str::kNumFused, "fused W [{0}, {1}] (first rows) = [ W_q | W_k | W_v ]"},
    {Str::kNumSplit, "column blocks: W_q {0} | W_k {1} | W_v {2}"},
    {Str::kNumThreeLinears, "three Linears x W_q, x W_k, x W_v against the fused x W split"},
    {Str::kNumEqual, "largest difference {0}: the same q, k and v"},
    {Str::kNumReshape, "q as one Linear's output {0}, then view + transpose to heads {1}"},
    {Str::kNumBatch, "batch {0}"},
    {Str::kNumQueryRow, "query row"},
    {Str::kNumHead, "head"},
    {Str::kNumReadValues, "z_i = \xCE\xA3_j p_ij v_j: each value row times its weight, summed"},
    {Str::kNumConcat, "heads concatenated {0}, mixed by W_o into out {1}"},
    {Str::kNumOut, "out row {0}"},
    {Str::kNumNoSandbox, "The numbers are the sandbox's: switch back to the sandbox to see them."},
    {Str::kNumRows, "(first {0} of {1} rows)"},
    {Str::kNumWeightsLoaded, "the weights loaded from the --weights files"},
    {Str::kNumWeightsRandom, "the random init this run drew (seed)"},
    {Str::kNumRawSide, "{0} comes from {1} (width {2}): no projection, so the W_{0} step does not apply; the {0} "
                       "rows the run used:"},
    // ---- attnviz-cli
    {Str::kCliErrorPrefix, "attnviz-cli {0}: {1}"},
    {Str::kCliSeeHelp, "attnviz-cli: unknown command '{0}' (commands: compute, sweep, export, model; see attnviz-cli "
                       "--help)"},
    {Str::kCliUnknownOption, "unknown option '{0}' (see attnviz-cli {1} --help)"},
    // ---- the engine's words (localized.h)
    {Str::kTitleScaled, "scaled"},
    {Str::kTitleUnscaled, "unscaled"},
    {Str::kTitleNoPositions, "no positions"},
    {Str::kTitleSaturation, "softmax saturation"},
    {Str::kTitleHead, "head {0}"},
    {Str::kTitleHeads, "{0} heads"},
    {Str::kTitleFrom, "{0} from {1}"},
    {Str::kTitleScore, "score {0}"},
    {Str::kTitleQueriesKeys, "queries {0}, keys {1}"},
    {Str::kModelLayerOf, "layer {0} of {1}"},
    // ---- export panel, settings file, command lines, a model's description, raw sources in Shapes
    {Str::kExportSweepBusy, "the d_k sweep is still computing; try again in a moment"},
    {Str::kExportNoModelResult, "no model result to export"},
    {Str::kExportNothingComputed, "nothing computed yet"},
    {Str::kExportEveryHeadHidden, "every head is hidden: show at least one to export"},
    {Str::kExportNoFigureLibrary, "this build has no figure library (core/figure): export is unavailable"},
    {Str::kExportOverviewTitle, "{0} \xC2\xB7 {1} layers \xC3\x97 {2} heads (map k: layer k / {2}, head k % {2})"},
    {Str::kSettingsCannotRead, "Settings file {0} cannot be read ({1})."},
    {Str::kSettingsReadFailed, "Settings file {0}."},
    {Str::kSettingsLeftAlone, " It is left as it is and will not be overwritten; started on defaults."},
    {Str::kSettingsProblems, "Settings file {0}: {1}."},
    {Str::kSettingsLineProblem, "line {0} ({1}): {2}; the default is used"},
    {Str::kSettingsConfigProblem, "{0}; the default attention settings are used"},
    {Str::kSettingsCorruptMoved, "Settings file {0} was corrupt ({1}); moved it to {2} and started on defaults."},
    {Str::kSettingsCorruptStuck, "Settings file {0} was corrupt ({1}) and could not be moved aside ({2})."},
    {Str::kAppUnknownOption, "unknown option '{0}' (see attnviz --help)"},
    {Str::kCliHeadAndHeads, "give --head N or --heads all|LIST, not both"},
    {Str::kCliOneSizeOption, "give one of --cell-size, --width and --size, not several"},
    {Str::kCliRandomAndText, "give --random-tokens or a text, not both"},
    {Str::kCliNoOut, "no output file: give --out FILE"},
    {Str::kCliUnknownRange, "--range: unknown range '{0}': allowed fixed|auto"},
    {Str::kCliHeadOutOfRange, "--head {0} is out of range: allowed 0..{1} (--heads {2})"},
    {Str::kCliPlotExtension, "--plot {0}: unknown extension '{1}': allowed .png, .svg"},
    {Str::kCliNoFigureLibrary, "--plot: this build has no figure library"},
    {Str::kCliWrote, "wrote {0}"},
    {Str::kCliWroteRows, "wrote {0} ({1} rows)"},
    {Str::kCliDumpWritten, "dump written to {0}/"},
    {Str::kCliModelPerHead, "{0} tokens; per head: mean max attention / mean entropy (nats)"},
    {Str::kCliPooled, "pooled mode: {0} x {1} x {2} map cells; no full map kept (pyramid {3} MiB)"},
    {Str::kModelDescribeLayers, "{0}: {1} layers, {2} heads x {3}"},
    {Str::kModelDescribeKvHeads, " ({0} key/value heads)"},
    {Str::kModelDescribeSizes, ", d_model {0}, d_ff {1}, vocab {2}, {3} positions, {4}"},
    {Str::kModelDescribeLinear, " (linear scaling)"},
    {Str::kModelDescribeLlama3, " (llama3 scaling)"},
    {Str::kModelDescribeWindow, ", sliding window {0}"},
    {Str::kStepRawSource, "{0} (no W)"},
    {Str::kNoteRawSource, "used as it is: every head gets the same numbers"},
    // ---- the settings file's syntax and values
    {Str::kSettingsExpectedKeyValue, "line {0}: expected 'key = value'"},
    {Str::kSettingsBadKey, "line {0}: bad key '{1}'"},
    {Str::kSettingsLineValue, "line {0} ({1}): {2}"},
    {Str::kSettingsConfig, "settings: {0}"},
    {Str::kSettingsNotOneOf, "'{0}' is not {1}"},
    {Str::kSettingsLoneBackslash, "a lone backslash at the end of the value"},
    {Str::kSettingsUnknownEscape, "unknown escape \\{0}"},
};
static_assert(TableIsComplete(kStringsEnTable, std::size(kStringsEnTable)),
              "strings_en.cpp: every Str id once, in order, none empty");
extern const StringEntry* const kStringsEn;
const StringEntry* const kStringsEn = kStringsEnTable;

}  // namespace attnviz
