export { DataPageFrame, DataPageLink, useDataPageParticipant } from './data-page-frame';
