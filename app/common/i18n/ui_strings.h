// The UI's words: one enum of string ids and one table per language (strings_en.cpp, strings_ko.cpp), so
// no panel holds a visible English literal. Tr(id) gives the current language's text; Trf fills {0}, {1}
// (numbered, so a language may reorder them). Plain C++: the desktop app and attnviz-cli both link it.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace attnviz {

enum class Lang { kEn = 0, kKo = 1 };
constexpr int kLangCount = 2;
const char* ToString(Lang lang);  // "en", "ko"
// The language's own name ("English", "한국어"), the same in every UI language.
const char* LangName(Lang lang);
// "en" or "ko" (also "english", "korean", "한국어"); false for anything else.
bool ParseLang(const std::string& text, Lang* lang);
// From the environment as setlocale would read it: LC_ALL, then LC_MESSAGES, then LANG; "ko..." -> Korean.
Lang LangFromEnvironment();

// The language Tr() answers in (process-wide: the UI has one language at a time).
void SetLang(Lang lang);
Lang CurrentLang();

enum class Str : int {
  // ---- window titles
  kWinControls, kWinSentences, kWinHeads, kWinShapes, kWinSaturation, kWinExport, kWinModel, kWinOverview,
  // ---- menu bar
  kMenuFile, kMenuQuit, kMenuView, kMenuResetLayout, kMenuStartHere,
  // ---- shared words
  kLanguage, kComputing, kNoResultYet, kOpen, kNotApplied, kNa,
  // ---- Controls
  kTrainedModelButton, kAttention, kDModel, kHeadsKnob, kDkTip, kAuto, kDkAutoTip, kDvAutoTip, kScaleCheckbox, kScaleOnlyScaledDotTip,
  kTemperature, kQkNormCheckbox, kQkNormTip, kSoftcapCheckbox, kSoftcapTip, kSoftcapValue, kMask, kMaskNone, kMaskCausal, kMode, kModeSelf, kModeCross, kQkv, kQkvFused, kQkvSeparate, kSeed,
  kPositional, kPicture, kColormap, kColour, kColourLinear, kColourLog, kRange, kRangeFixed, kRangeAuto,
  kQueryFrom, kKeyFrom, kValueFrom, kScore, kFeatureEmbedding, kFeatureLength, kFeaturePosition, kFeatureOneHot,
  kScoreScaledDot, kScoreDot, kScoreAdditive, kScoreCosine, kScoreNegDistance, kFeaturesTip,
  // ---- Sentences
  kQuerySentence, kKvSentence, kSentence, kQueriesByKeys, kLoadedSentences, kSentenceFile, kRecent, kSentencesTip,
  kLoadedSentencesFrom,
  // ---- Heads
  kDismiss, kComputingStage, kHeadsStatusKeys, kShowingLastGood, kSettingsNotApplied, kShow, kViewGrid,
  kViewEnlarged, kViewSideBySide, kPoolMax, kPoolMean, kEveryHeadHidden, kClickBackToGrid, kClickForNeuron, kComputingOtherScaling,
  kUnscaledPrefix, kTipHead, kTipQuery, kTipKey, kTipQkFeatures, kTipMasked, kTipWeight, kTipLogitBefore, kTipLogitAfter, kTipLogitCapped,
  kUnscaled, kTipRowEntropy, kTipRowMax, kTipDrawn, kCaptionHead, kCaptionLayer, kMaskedLegend,
  // ---- Saturation
  kNowDk, kCurveMaxWeight, kCurveEntropy, kCurveGrad, kSweeping, kSweepSummary, kTipScaled, kTipUnscaled, kColHead,
  kColMaxW, kColHNorm, kColGrad, kColLogitSd,
  // ---- Shapes
  kNoModelOpen, kModelLayers, kGroupedQueryShapes, kEveryHeadOwnKv, kShapesRules, kColStep, kColTensor, kColShape,
  kNoteQuerySentence, kNoteKvSentence, kNoteTokensPositions, kNoteRowsSumToOne, kNoteOneMapPerHead, kResidualStream,
  kTabShapes, kTabNumbers, kTabLessons, kTabDictionary, kTabVariance, kFusedNote, kSeparateNote,
  // ---- Export
  kExportHead, kExportHeads, kExportSaturation, kExportOverview, kFolder, kFile, kExportHeadHint, kExportButton,
  kExporting, kExportingPath, kWrote, kExportFailed, kNoFileName, kExportTitle, kExportTitleHint, kExportSize,
  kExportSizeTip, kExportDpi, kExportAnnotate, kExportAnnotateTooSmall, kExportFileExists,
  kExportOverwrite, kExportSaveAsNext,
  // ---- Model
  kSourceSandbox, kSourceModel, kModelFolderHint, kBundledTiny, kBundledRepeatedWhy, kOpeningModel, kDropModelHint, kGgufWhatWasRead, kLayer,
  kHideSpecial, kWhatIf, kNoScaling, kOnLayers, kOnLayersHint, kRunning, kHeadRoleLine, kHeadRoleChance, kTokensAsModelSees, kTokensKeptFromLast,
  kSpecialToken, kUseFirstTokens,
  // ---- Overview
  kComputingFirstMaps, kOpenModelForOverview, kGroupedQueryOverview, kRoleFilter, kRoleFilterHint, kOverviewTip,
  // ---- Lessons (a)-(g): title, text, what the button does, the question to answer by playing
  kLessonsIntro, kLessonShow, kLessonQuestion, kLessonNow,
  kLessonATitle, kLessonAText, kLessonAButton, kLessonAQuestion,
  kLessonBTitle, kLessonBText, kLessonBButton, kLessonBQuestion,
  kLessonCTitle, kLessonCText, kLessonCButton, kLessonCQuestion,
  kLessonDTitle, kLessonDText, kLessonDButton, kLessonDQuestion, kLessonDTodayText, kLessonDTodayButton,
  kLessonDTodayQuestion,
  kLessonETitle, kLessonEText, kLessonEButton, kLessonEQuestion,
  kLessonFTitle, kLessonFText, kLessonFButton, kLessonFQuestion,
  kLessonGTitle, kLessonGText, kLessonGButton, kLessonGQuestion, kLessonPrevHeads, kLessonInductionHeads,
  kLessonHeadAt, kLessonNoSuchHead, kLessonClose,
  // ---- Dictionary view (g)
  kDictIntro, kDictTable, kDictQuery, kDictKey, kDictValue, kDictScore, kDictWeight, kDictBlended, kDictExact,
  kDictSoft, kDictTie, kDictAddRow, kDictRemoveRow, kDictWords, kDictNumbers,
  // ---- Variance picture (d)
  kVarIntro, kVarDk, kVarHistogram, kVarStd, kVarRow, kVarUnscaled, kVarScaled, kVarMaxWeight,
  // ---- Pipeline as numbers (c, e, g)
  kNumFused, kNumSplit, kNumThreeLinears, kNumEqual, kNumDiffer, kNumReshape, kNumBatch, kNumQueryRow, kNumHead, kNumReadValues,
  kNumConcat, kNumOut, kNumNoSandbox, kNumRows, kNumWeightsLoaded, kNumWeightsRandom, kNumRawSide,
  // ---- attnviz-cli
  kCliErrorPrefix, kCliSeeHelp, kCliUnknownOption,  // usage error, unknown command, unknown option
  // ---- the engine's words (localized.h): title and summary-line segments, the model's progress
  kTitleScaled, kTitleUnscaled, kTitleNoPositions, kTitleSaturation, kTitleHead, kTitleHeads, kTitleFrom,
  kTitleScore, kTitleQueriesKeys, kModelLayerOf,
  // a model figure's title (app/common/model_figure.h ModelFigureTitle): "layer 1", "bidirectional", "causal,
  // window 8", "no 1/√d_head", "... on layer 0", "... on layers 0, 2", "... on every layer", "special tokens hidden"
  kTitleLayer, kTitleBidirectional, kTitleCausalWindow, kTitleNoSqrtScale, kTitleNoSoftcap, kTitleSoftcap, kTitleQkNorm, kTitleOnLayer, kTitleOnLayers,
  kTitleOnEveryLayer, kTitleSpecialHidden,
  // ---- export panel, settings file, the app's command line, attnviz-cli's input errors and output, a model's
  // description, the Shapes tab's raw sources
  kExportSweepBusy, kExportNoModelResult, kExportOverviewStreamed, kHideSpecialStreamed, kExportNothingComputed, kExportEveryHeadHidden, kExportNoFigureLibrary,
  kExportOverviewTitle, kExportPanelLayerHead, kSettingsCannotRead, kSettingsReadFailed, kSettingsLeftAlone, kSettingsProblems,
  kSettingsLineProblem, kSettingsConfigProblem, kSettingsCorruptMoved, kSettingsCorruptStuck, kAppUnknownOption, kAppBadLesson,
  kCliHeadAndHeads, kCliOneSizeOption, kCliRandomAndText, kCliNoOut, kCliUnknownRange, kCliHeadOutOfRange,
  kCliPlotExtension, kCliNoFigureLibrary,
  kCliWrote, kCliAnnotateTooSmall, kCliWroteRows, kCliDumpWritten, kCliModelPerHead, kCliPooled, kCliPredictLoss, kCliPredictMasked, kCliPredictOneToken, kCliNeuronMasked, kCliNoPiece, kModelDescribeLayers,
  kModelDescribeKvHeads, kModelDescribeSizes, kModelDescribeLinear, kModelDescribeLlama3, kModelDescribeFreqFactors, kModelDescribeWindow,
  kStepRawSource, kNoteRawSource, kCliComputeSummary,
  // ---- the settings file's syntax and values (state.cpp)
  kSettingsExpectedKeyValue, kSettingsBadKey, kSettingsLineValue, kSettingsConfig, kSettingsNotOneOf,
  kSettingsLoneBackslash, kSettingsUnknownEscape,
  // ---- the words a heatmap figure prints (figure/heatmap_figure.h FigureWords)
  kFigQuery, kFigKey, kFigWeight, kFigWeightLog, kFigMasked, kFigHead,
  // ---- the words of the saturation figure (figure/figure_words.h SaturationWords), the panel's one-line legend and
  // what the Heads panel says under a score never divided by sqrt(d_k)
  kFigScaled, kFigUnscaled, kFigUndivided, kFigMaxWeight, kFigMaxWeightAxis, kFigEntropy, kFigEntropyAxis,
  kFigGradient, kFigGradientAxis, kFigDkLogAxis, kHeadsStatusKeysNoScale, kSideBySideSameMapsTip,
  // ---- added for the learner trial (issue 24)
  kWidthRefusalSeeControls, kFaintMapsHint, kUseLogScale, kSinkHint, kSinkOverview, kShapePooled,
  kCaptionMax, kRoleShortPrev, kRoleShortInduction, kRoleShortSink, kRoleShortSelf, kRoleShortLocal, kRoleShortBroad,
  kTokByteLevel, kTokByteFallback, kTokLowercase, kTokCased, kTokPre, kTokCount,
  kMenuOpenModel, kMenuBundledModel, kMenuOpenSentences, kMenuNothingRecent, kMenuSandbox, kMenuExport, kMenuLessons, kNumReshapeRaw, kActivationTanhApprox, kStepEmbed,
  // ---- predictions, loss and head ablation in the app (gui-predict)
  kModelPredictingOf, kNoLmHead, kPredictNextTip, kPredictMaskTip, kPredictNoMask, kPredictHowTo, kPredictPinned,
  kLossLine, kLossChange, kLossBaselineUnknown, kLossExplain, kLossMasked, kAblateHead, kRestoreHead, kAblatedHeads,
  kRestoreAll, kScanButton, kScanCancel, kScanProgress, kScanRefused, kScanBase, kScanAt, kScanAtHint, kScanAtShown, kScanPartial, kScanColStack, kScanColLayer, kScanColHead,
  kScanColLoss, kScanColDelta, kScanColorOverview, kScanOtherWhatIfs, kOverviewAblatedTip, kOverviewDeltaTip, kOverviewDeltaLegend,
  kOverviewBadgeChance,
  // ---- the neuron view and the other map kinds (rollout, value-weighted)
  kMapKindLabel, kMapKindAttention, kMapKindRollout, kMapKindValueWeighted, kRolloutExplain, kValueWeightedExplain,
  kRolloutPooled, kRolloutRefusedMemory, kValueWeightedMaking, kRolloutMaking, kModelRolloutOf, kValueWeightedOverviewStreamed,
  kExportExactRowsPending, kTipWeightPending, kTitleRollout, kTitleValueWeighted, kTitleTokensPerCell,
  kWinNeuron,
  kNeuronHint, kNeuronWhat, kNeuronExplain, kNeuronRopeNote, kNeuronRowQBefore, kNeuronRowKBefore,
  kNeuronRowProduct, kNeuronScore, kNeuronScale, kNeuronLogit, kNeuronProb, kNeuronMasked, kNeuronNoHead,
  kNoSoftcap, kNoQkNorm, kNeuronQkNormNote, kNeuronRowQBeforeNorm, kNeuronRowKBeforeNorm, kNeuronScaleFrom,
  kNeuronSoftcapped, kModelDescribeLayerWindow, kModelDescribeQkNormHead, kModelDescribeQkNormWhole,
  kModelDescribeScalar, kModelDescribeSoftcaps, kModelDescribeLocalRope,
  // The Model panel's token-loss colours, the Overview's logit lens, the ablation mode.
  kOverviewShowMaps, kOverviewShowLens, kChipColorLabel, kChipColorNone, kChipColorLoss, kChipColorDelta,
  kTokenLossExplain, kTokenLossDeltaExplain, kTokenLossMasked, kTokenLossShort, kTokenLossLegend,
  kTokenLossDeltaLegend, kTokenLossTip, kTokenLossTipDelta, kTokenLossFirstTip, kLensExplain, kLensMaskedNote,
  kLensWindow, kLensFirst, kLensProgress, kLensCancelled, kLensTip, kLensTipNext, kLensLegend, kLensLegendTop,
  kAblateModeLabel, kAblateModeZero, kAblateModeMean,
  // The Overview's attribution and patching (issue 41), and exporting the grid it shows.
  kOverviewShowAttribution, kOverviewShowPatching, kAttribExplain, kAttribPosition, kAttribTarget, kAttribTargetHint,
  kAttribDefaultTarget, kAttribSum, kAttribCapped, kAttribEmbed, kAttribAttnBias, kAttribNormBias, kAttribTipHead,
  kAttribTipPart, kAttribLegend, kAttribBusy, kPatchExplain, kPatchClean, kPatchTokenA, kPatchTokenB, kPatchRun,
  kPatchNeedsRun, kPatchProgressHeads, kPatchProgressResidual, kPatchPartial, kPatchCounts, kPatchMetric, kPatchStale,
  kPatchHeads, kPatchResidual, kPatchTipHead, kPatchTipResidual, kPatchNotDone, kPatchLegend, kExportOverviewView,
  kExportNoGrid, kExportGridFormats, kExportGridChoice, kExportGridHeads, kExportGridResidual, kGridTitleLens,
  kGridTitleAttribution, kGridTitlePatching, kGridTitlePatchingResidual,
  // Encoder-decoder models (issue 40).
  kSeq2SeqEncoderAttention, kSeq2SeqDecoderAttention, kSeq2SeqCrossAttention, kCliSeq2SeqLayerLine,
  kSeq2SeqFigureTitle, kSeq2SeqTargetAxis, kSeq2SeqSourceAxis,
  // attnviz-cli model --figure --pool (a long map pooled)
  kTitleMaxPooled, kTitleMeanPooled,
  // The app on encoder-decoder models.
  kSeq2SeqSourceText, kSeq2SeqTargetText, kSeq2SeqTranslate, kSeq2SeqTranslateHint, kSeq2SeqTranslating,
  kSeq2SeqGenerated, kSeq2SeqTokensLine, kSeq2SeqOverviewHint, kSeq2SeqShownStack, kSeq2SeqShapesTitle,
  kSeq2SeqShapesQ, kSeq2SeqShapesKv, kSeq2SeqShapesProbs, kSeq2SeqEncoderSide, kSeq2SeqDecoderSide,
  kSeq2SeqCrossLengths, kSeq2SeqOpening,
  // Predictions, loss and head ablation on encoder-decoder models.
  kSeq2SeqCrossSide, kSeq2SeqAblateHead, kSeq2SeqRestoreHead, kSeq2SeqLossChange, kSeq2SeqLossExplain,
  kSeq2SeqTokenLossExplain, kSeq2SeqTokenLossDeltaExplain, kSeq2SeqTokenLossTipDelta, kSeq2SeqPredictTip,
  kSeq2SeqTargetTokens, kSeq2SeqTranslateUnablated,
  // Lesson (b)'s second part: the bundled encoder-decoder model with trained weights.
  kLessonBTrainedText, kLessonBTrainedButton, kLessonBTrainedQuestion, kLessonNoBundledSeq2Seq,
  // The neuron view, map kinds and the scan on encoder-decoder models.
  kNeuronPositionBias, kSeq2SeqRolloutNoCross, kSeq2SeqKindMaking, kSeq2SeqScanProgress, kSeq2SeqScanDone, kSeq2SeqScanAtShown,
  kSeq2SeqScanStop,
  // The logit lens, attribution and patching on encoder-decoder models.
  kSeq2SeqLensExplain, kSeq2SeqAttribExplain, kSeq2SeqAttribTipHead, kSeq2SeqAttribPostNorm, kSeq2SeqPatchExplain,
  kSeq2SeqPatchClean, kSeq2SeqPatchCounts, kSeq2SeqPatchMetric, kSeq2SeqPatchHeads, kSeq2SeqPatchResidual,
  kSeq2SeqPatchTipHead, kSeq2SeqPatchTipResidual, kSeq2SeqPatchProgress,
  kCount
};

// The current language's text for `id` (never empty: both tables are complete, checked at compile time).
const char* Tr(Str id);
const char* Tr(Str id, Lang lang);
// Tr(id) with {0}, {1}, ... replaced by args[0], args[1], ...
std::string Trf(Str id, const std::vector<std::string>& args);

// A table: entry i is {Str(i), text}. Both tables list every id in order (static_assert in each .cpp).
struct StringEntry {
  Str id;
  const char* text;
};
const StringEntry* StringTable(Lang lang);  // kCount entries

// For the static_asserts: entries in id order, none empty.
constexpr bool TableIsComplete(const StringEntry* table, size_t size) {
  if (size != (size_t)Str::kCount) return false;
  for (size_t i = 0; i < size; ++i)
    if ((size_t)table[i].id != i || table[i].text == nullptr || table[i].text[0] == 0) return false;
  return true;
}

}  // namespace attnviz
