// The words a heatmap figure prints, English unless the caller gives its language's (app/common/i18n
// LocalizedFigureWords): the axis titles, the colorbar's, the masked legend and each grid panel's title.
#pragma once
#include <string>

namespace attnviz {

struct FigureWords {
  std::string query = "query", key = "key", weight = "weight", weight_log = "weight (log)", masked = "masked";
  std::string head = "head ";  // followed by the head's number
};

}  // namespace attnviz
